#include "cli/failure.hpp"

#include <new>
#include <stdexcept>
#include <string>

#include "cli/app.hpp"
#include "io/input_error.hpp"
#include "model/contract_error.hpp"
#include "report/safe_text.hpp"
#include "report/write_error.hpp"

namespace roofline::cli {

namespace {

// Prints an error for a terminal: a name in the message cannot drive it.
int print(std::ostream& err, std::string_view label, std::string_view message, int code) {
  err << label << report::terminal_text(message, true) << "\n";
  return code;
}

int internal(std::ostream& err, std::string_view what) {
  return print(err, "internal error: ",
               std::string(what) + "; this is a bug in rooflineplan, not in your input: please report it with the "
                                   "command line that ran",
               kExitFailure);
}

}  // namespace

int exit_for(std::exception_ptr failure, std::ostream& err) {
  try {
    std::rethrow_exception(failure);
  } catch (const io::InputError& e) {
    return print(err, "error: ", e.what(), io::kExitInputError);
  } catch (const std::invalid_argument& e) {  // a logic_error, but thrown for a value refused
    return print(err, "error: ", e.what(), io::kExitInputError);
  } catch (const std::logic_error& e) {  // ContractError and the standard library's own
    return internal(err, e.what());
  } catch (const report::WriteError& e) {
    return print(err, "error: ", e.target().empty() ? "writing standard output: " + e.reason() : std::string(e.what()),
                 kExitFailure);
  } catch (const std::bad_alloc&) {
    return print(err, "error: ", "out of memory", kExitFailure);
  } catch (const std::exception& e) {
    return print(err, "error: ", e.what(), kExitFailure);
  } catch (...) {
    return internal(err, "an exception that is not the standard library's");
  }
}

}  // namespace roofline::cli
