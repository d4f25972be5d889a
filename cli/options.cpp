#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "cli/command.hpp"
#include "io/input_error.hpp"

namespace roofline::cli {

struct ListChecks {
  std::string flag;
  std::vector<CLI::Validator> checks;
};

namespace {

// CLI11 2.1 reads an empty value as 0 and clamps an integer past its type (2^64 becomes
// 2^63 - 1), both silently; a number flag takes only what std::from_chars reads whole, within
// its type, and finite. Integers are added with transform(), not check() (which marks a
// validator as not modifying), so that the decimal digits read replace what CLI11 converts.
template <class T>
CLI::Validator number_of() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty()) return "empty; give a number";
        T value{};
        const char* first = text.data() + (text.front() == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
        if constexpr (std::is_integral_v<T>) {
          if (ec == std::errc::result_out_of_range) {
            return "out of range (" + std::to_string(std::numeric_limits<T>::min()) + " to " +
                   std::to_string(std::numeric_limits<T>::max()) + ")";
          }
          if (ec != std::errc() || end != text.data() + text.size()) return "`" + text + "` is not a whole number";
          // CLI11 converts with strtoll(base 0): "010" would be 8 and "08" refused. It gets the
          // decimal digits just read.
          text = std::to_string(value);
        } else {
          if (ec == std::errc::result_out_of_range) return "`" + text + "` is out of a double's range";
          if (ec != std::errc() || end != text.data() + text.size()) return "`" + text + "` is not a number";
          if (!std::isfinite(value)) return "`" + text + "` is not finite";
        }
        return {};
      },
      std::is_integral_v<T> ? "INT" : "NUMBER");
}

// CLI11 2.1 splits a list flag's words at ',' and drops empty items without a word: "-b 1,,2"
// ran batches 1 and 2, "-b 1," ran 1. A list flag splits its words here instead, refuses an
// empty item, and puts each item through the flag's checks (a number, one of a set).
std::vector<std::string> split_items(const std::vector<std::string>& words, const ListChecks& list) {
  std::vector<std::string> items;
  for (const std::string& word : words) {
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = std::min(word.find(',', start), word.size());
      std::string item = word.substr(start, comma - start);
      // A word without a comma is one item, an empty one included: the flag's own check says
      // what an empty value is.
      if (item.empty() && (start > 0 || comma != word.size())) {
        throw CLI::ValidationError(list.flag, "\"" + word + "\" has an empty item; give one value or a list a,b,c");
      }
      for (const CLI::Validator& check : list.checks) {
        if (std::string why = check(item); !why.empty()) throw CLI::ValidationError(list.flag, why);
      }
      items.push_back(std::move(item));
      if (comma == word.size()) break;
      start = comma + 1;
    }
  }
  return items;
}

// A list flag as CLI11 would declare it (its type and default for --help), its words split by
// split_items before `take` reads the items.
template <class T>
CLI::Option* add_list(CLI::App& app, const std::string& names, const std::string& help, std::vector<T>& into,
                      const std::string& type, const std::shared_ptr<ListChecks>& list,
                      std::function<T(const std::string&)> take) {
  CLI::Option* o = app.add_option_function<std::vector<std::string>>(
                          names,
                          [&into, list, take](const std::vector<std::string>& words) {
                            into.clear();
                            for (const std::string& item : split_items(words, *list)) into.push_back(take(item));
                          },
                          help)
                       ->type_name(type)
                       ->default_function([&into] { return CLI::detail::to_string(into); });
  list->flag = o->get_name();
  return o;
}

}  // namespace

Options& Options::add(const std::string& names, std::string& into, const std::string& help) {
  last_ = app_.add_option(names, into, help);
  return *this;
}

Options& Options::add(const std::string& names, long& into, const std::string& help) {
  last_ = app_.add_option(names, into, help)->transform(number_of<long>());
  return *this;
}

Options& Options::add(const std::string& names, int& into, const std::string& help) {
  last_ = app_.add_option(names, into, help)->transform(number_of<int>());
  return *this;
}

Options& Options::add(const std::string& names, double& into, const std::string& help) {
  last_ = app_.add_option(names, into, help)->check(number_of<double>());
  return *this;
}

Options& Options::add(const std::string& names, std::optional<long>& into, const std::string& help) {
  last_ = app_.add_option_function<long>(names, [&into](const long& v) { into = v; }, help)->transform(number_of<long>());
  return *this;
}

// A text flag whose absence the command tells from any value given, the default among them.
Options& Options::add(const std::string& names, std::optional<std::string>& into, const std::string& help) {
  last_ = app_.add_option_function<std::string>(names, [&into](const std::string& v) { into = v; }, help);
  return *this;
}

Options& Options::add(const std::string& names, std::optional<double>& into, const std::string& help) {
  last_ = app_.add_option_function<double>(names, [&into](const double& v) { into = v; }, help)->check(number_of<double>());
  return *this;
}

Options& Options::add(const std::string& names, std::vector<std::string>& into, const std::string& help) {
  last_list_ = std::make_shared<ListChecks>();
  last_ = add_list<std::string>(app_, names, help, into, "TEXT", last_list_, [](const std::string& item) { return item; });
  return *this;
}

Options& Options::add(const std::string& names, std::vector<double>& into, const std::string& help) {
  last_list_ = std::make_shared<ListChecks>();
  last_list_->checks.push_back(number_of<double>());
  last_ = add_list<double>(app_, names, help, into, "FLOAT:NUMBER", last_list_, [](const std::string& item) {
    // Each item read whole and finite by its check.
    double v = 0;
    std::from_chars(item.data() + (item.front() == '+' ? 1 : 0), item.data() + item.size(), v);
    return v;
  });
  return *this;
}

Options& Options::flag(const std::string& names, bool& into, const std::string& help) {
  last_ = app_.add_flag(names, into, help);
  return *this;
}

Options& Options::one_of(std::vector<std::string> values) {
  CLI::IsMember member(std::move(values));
  if (last_list_ && last_list_->flag == last_->get_name()) {
    // A list's items are checked one by one as it splits them; --help names the set as CLI11 would.
    last_->type_name(last_->get_type_name() + ":" + member.get_description());
    last_list_->checks.push_back(std::move(member));
  } else {
    last_->check(std::move(member));
  }
  return *this;
}

Options& Options::show_default() {
  last_->capture_default_str();
  return *this;
}

Options& Options::given(bool& into) {
  last_->each([&into](const std::string&) { into = true; });
  return *this;
}

Options& Options::writes_file() {
  last_->check(
      [](const std::string& v) -> std::string {
        if (v.empty()) return "empty; give a name, or leave the flag out for its default";
        if (v == "-") return "`-` would be a file (or folder) named -, not standard output; leave the flag out for its default";
        // A flag given after this one takes its place as its value (`-o --help` wrote a CSV named
        // --help; `calibrate --kernel-table --help` made a folder so named and measured for minutes).
        if (v.front() == '-') return v + " begins with -, as a flag does; name a file so named ./" + v;
        return "";
      },
      "");
  return *this;
}

Options& Options::required() {
  last_->required();
  return *this;
}

void add_lang_option(Options& o, std::string& into) { o.add("--lang", into, "en or zh").one_of({"en", "zh"}).show_default(); }

void check_flag_line_quotes(std::string_view line) {
  // CLI11 2.1's split (CLI::detail::split_up): a word that starts with a quote (' " `), or the value
  // after `--flag=`, runs to the next unescaped quote of its kind, or to the end of the line where
  // there is none; then one character is skipped, taken for the blank that ends the word.
  const auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0;
  while (i < line.size()) {
    if (blank(line[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && !blank(line[end])) ++end;
    std::size_t open = i;
    if (line[i] == '-') {
      const std::size_t eq = line.substr(i, end - i).find('=');
      open = eq == std::string_view::npos ? end : i + eq + 1;
    }
    if (open >= line.size() || std::string_view("'\"`").find(line[open]) == std::string_view::npos) {
      i = end;
      continue;
    }
    std::size_t close = line.find(line[open], open + 1);
    while (close != std::string_view::npos && line[close - 1] == '\\') close = line.find(line[open], close + 1);
    if (close == std::string_view::npos) {
      throw io::InputError(fmt::format("unterminated quote: `{}` has no closing {}", line.substr(open), line[open]));
    }
    if (close + 1 < line.size() && !blank(line[close + 1])) {
      std::size_t word_end = close + 1;
      while (word_end < line.size() && !blank(line[word_end])) ++word_end;
      throw io::InputError(fmt::format("`{}`: `{}` follows the closing {} with no space, and a quoted word ends at its "
                                       "quote; quote the whole word, or put a space before `{}`",
                                       line.substr(i, word_end - i), line.substr(close + 1, word_end - close - 1),
                                       line[open], line.substr(close + 1, word_end - close - 1)));
    }
    i = close + 1;
  }
}

bool has_extension(std::string_view path, std::string_view extension) {
  if (path.size() < extension.size()) return false;
  const std::string_view end = path.substr(path.size() - extension.size());
  return std::equal(end.begin(), end.end(), extension.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

io::InputError flag_file_error(std::string_view flag, std::string_view arg, const io::InputError& e) {
  const std::string_view what = e.what();
  if (arg.empty() || !what.starts_with(arg) || !what.substr(arg.size()).starts_with(": ")) return e;
  return io::InputError(fmt::format("{}: {}", flag, what));
}

void parse_flag_line(const std::string& line, const std::function<void(Options&)>& declare) {
  check_flag_line_quotes(line);
  CLI::App app;
  app.set_help_flag();  // --help in a file is an unknown flag, not a request
  // What is left over is said here, in the order written: CLI11's own message lists it
  // backwards ("not expected: 4 --batch").
  app.allow_extras();
  Options options(app);
  declare(options);
  try {
    app.parse(line, false);
  } catch (const CLI::ParseError& e) {
    throw io::InputError(e.what());
  }
  if (const std::vector<std::string> extra = app.remaining(); !extra.empty()) {
    std::string words;
    for (const std::string& w : extra) words += (words.empty() ? "" : " ") + w;
    throw io::InputError("not a flag this line takes: " + words);
  }
}

}  // namespace roofline::cli
