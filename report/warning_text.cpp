#include "report/warning_text.hpp"

#include <fmt/format.h>

namespace roofline::report {

namespace {

struct Words {
  std::string_view architecture_unknown, beyond_max_context, does_not_fit;
};

constexpr Words kEnglish{
    "architecture unknown (only `params` given): KV cache, attention and activations are not modelled; decode "
    "reads the weights only",
    "{tokens} tokens exceed the model's max_context of {max}",
    "does not fit: needs {needed:.1f} GB of {capacity:.1f} GB at batch {batch}"};

constexpr Words kChinese{"架构未知（只给了 `params`）：KV 缓存、注意力和激活均未建模；解码只读取权重",
                         "{tokens} 个 token 超过了模型的 max_context（{max}）",
                         "放不下：批大小 {batch} 需要 {needed:.1f} GB，容量只有 {capacity:.1f} GB"};

struct Wording {
  const Words& words;
  std::string operator()(const ArchitectureUnknown&) const { return std::string(words.architecture_unknown); }
  std::string operator()(const BeyondMaxContext& w) const {
    return fmt::format(fmt::runtime(words.beyond_max_context), fmt::arg("tokens", w.tokens),
                       fmt::arg("max", w.max_context));
  }
  std::string operator()(const DoesNotFit& w) const {
    return fmt::format(fmt::runtime(words.does_not_fit), fmt::arg("needed", w.needed.value() / 1e9),
                       fmt::arg("capacity", w.capacity.value() / 1e9), fmt::arg("batch", w.batch));
  }
};

}  // namespace

std::string warning_text(const Warning& w, std::string_view lang) {
  return std::visit(Wording{lang == "zh" ? kChinese : kEnglish}, w);
}

std::string_view warning_label(std::string_view lang) { return lang == "zh" ? "注意：" : "warning: "; }

std::vector<std::string> warning_texts(const Report& r, std::string_view lang) {
  std::vector<std::string> out;
  out.reserve(r.warnings.size());
  for (const Warning& w : r.warnings) out.push_back(warning_text(w, lang));
  return out;
}

}  // namespace roofline::report
