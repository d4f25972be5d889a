#include "chart/png_canvas.hpp"

#include <fmt/format.h>

#include <stdexcept>

#ifdef ROOFLINEPLAN_HAVE_CAIRO
#include <cairo-ft.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>

#include <algorithm>

#include "report/safe_text.hpp"
#include "text/utf8.hpp"
#endif

namespace roofline::chart {

#ifdef ROOFLINEPLAN_HAVE_CAIRO

namespace {

void set_color(cairo_t* cr, Color c, double alpha = 1) { cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, alpha); }

void trace(cairo_t* cr, const std::vector<Pt>& points) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i == 0) cairo_move_to(cr, points[i].x, points[i].y);
    else cairo_line_to(cr, points[i].x, points[i].y);
  }
}

// True when the text holds a character a terminal draws two columns wide: Chinese, Japanese,
// Korean, fullwidth punctuation. DejaVu Sans has none of them.
bool has_wide(std::string_view s) {
  while (!s.empty()) {
    const text::CodePoint c = text::decode_utf8(s);
    if (c.length > 0 && text::display_width(c.code) == 2) return true;
    s.remove_prefix(std::max<std::size_t>(1, c.length));
  }
  return false;
}

// The font fontconfig chooses for sans-serif Simplified Chinese: Noto Sans CJK SC where Debian's
// fonts-noto-cjk is installed, WenQuanYi Zen Hei with fonts-wqy-zenhei. Null when fontconfig
// finds nothing at all.
cairo_font_face_t* chinese_face() {
  FcPattern* pattern = FcNameParse(reinterpret_cast<const FcChar8*>("sans-serif:lang=zh-cn"));
  if (pattern == nullptr) return nullptr;
  FcConfigSubstitute(nullptr, pattern, FcMatchPattern);
  FcDefaultSubstitute(pattern);
  FcResult result = FcResultNoMatch;
  FcPattern* match = FcFontMatch(nullptr, pattern, &result);
  FcPatternDestroy(pattern);
  if (match == nullptr) return nullptr;
  cairo_font_face_t* face = cairo_ft_font_face_create_for_pattern(match);  // keeps its own copy
  FcPatternDestroy(match);
  return face;
}

class CairoCanvas final : public Canvas {
 public:
  CairoCanvas(cairo_t* cr, double width, double height)
      : cr_(cr),
        width_(width),
        height_(height),
        latin_(cairo_toy_font_face_create("DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)) {}
  ~CairoCanvas() override {
    cairo_font_face_destroy(latin_);
    if (chinese_ != nullptr) cairo_font_face_destroy(chinese_);
  }
  CairoCanvas(const CairoCanvas&) = delete;
  CairoCanvas& operator=(const CairoCanvas&) = delete;
  [[nodiscard]] double width() const override { return width_; }
  [[nodiscard]] double height() const override { return height_; }
  [[nodiscard]] double em() const override { return 13; }
  [[nodiscard]] double text_width(std::string_view text, double size) const override {
    // Cairo puts the whole context in an error state on bytes that are not UTF-8.
    const std::string shown = report::terminal_text(text);
    use_font_for(shown, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr_, shown.c_str(), &e);
    return e.x_advance;
  }
  void polyline(const std::vector<Pt>& points, const Stroke& s) override {
    const double dash[] = {6, 4};
    cairo_set_dash(cr_, dash, s.dashed ? 2 : 0, 0);
    cairo_set_line_width(cr_, s.width);
    set_color(cr_, s.color);
    trace(cr_, points);
    cairo_stroke(cr_);
  }
  void polygon(const std::vector<Pt>& points, Color fill, double opacity) override {
    set_color(cr_, fill, opacity);
    trace(cr_, points);
    cairo_close_path(cr_);
    cairo_fill(cr_);
  }
  void point(Pt at, double radius, Color fill, const Datum&) override {
    cairo_new_path(cr_);  // else the arc is joined to wherever the last text ended
    cairo_arc(cr_, at.x, at.y, radius, 0, 6.283185307179586);
    set_color(cr_, fill);
    cairo_fill_preserve(cr_);
    cairo_set_dash(cr_, nullptr, 0, 0);
    cairo_set_line_width(cr_, 0.8);
    set_color(cr_, {255, 255, 255});
    cairo_stroke(cr_);
  }
  void text(Pt at, std::string_view text, double size, Anchor anchor, Color color) override {
    const double w = text_width(text, size);  // also selects the text's font
    const double x = anchor == Anchor::start ? at.x : anchor == Anchor::middle ? at.x - w / 2 : at.x - w;
    set_color(cr_, color);
    cairo_move_to(cr_, x, at.y);
    cairo_show_text(cr_, report::terminal_text(text).c_str());
  }

 private:
  // Cairo's text API draws a string in one font, with no fallback from one character to the
  // next, so a label with a Chinese character in it is drawn wholly in the Chinese face (whose
  // Latin letters and digits are its own) and every other label in DejaVu Sans, as before.
  // A Chinese character that face lacks would be drawn as an empty box: refused instead, with
  // the package that has it.
  void use_font_for(const std::string& shown, double size) const {
    if (!has_wide(shown)) {
      cairo_set_font_face(cr_, latin_);
      cairo_set_font_size(cr_, size);
      return;
    }
    if (chinese_ == nullptr) chinese_ = chinese_face();
    if (chinese_ != nullptr) cairo_set_font_face(cr_, chinese_);
    cairo_set_font_size(cr_, size);
    cairo_glyph_t* glyphs = nullptr;
    int count = 0;
    const cairo_status_t s = cairo_scaled_font_text_to_glyphs(cairo_get_scaled_font(cr_), 0, 0, shown.c_str(),
                                                              static_cast<int>(shown.size()), &glyphs, &count,
                                                              nullptr, nullptr, nullptr);
    // Glyph 0 is a font's "missing character" box.
    const bool missing = chinese_ == nullptr || s != CAIRO_STATUS_SUCCESS ||
                         std::any_of(glyphs, glyphs + count, [](const cairo_glyph_t& g) { return g.index == 0; });
    cairo_glyph_free(glyphs);
    if (missing) {
      throw std::runtime_error(fmt::format("cannot draw '{}' in the PNG: no installed font has its Chinese characters "
                                           "(install fonts-noto-cjk or fonts-wqy-zenhei), or write .svg",
                                           shown));
    }
  }

  cairo_t* cr_;
  double width_, height_;
  cairo_font_face_t* latin_;
  mutable cairo_font_face_t* chinese_ = nullptr;  // looked up on the first Chinese label
};

}  // namespace

bool png_supported() { return true; }

void write_png(std::ostream& out, double width, double height, double scale,
               const std::function<void(Canvas&)>& paint) {
  using Surface = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
  using Context = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;
  const Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(width * scale),
                                                   static_cast<int>(height * scale)),
                        cairo_surface_destroy);
  const Context cr(cairo_create(surface.get()), cairo_destroy);
  cairo_scale(cr.get(), scale, scale);
  cairo_set_source_rgb(cr.get(), 1, 1, 1);
  cairo_paint(cr.get());
  CairoCanvas canvas(cr.get(), width, height);
  paint(canvas);
  cairo_surface_flush(surface.get());
  // Cairo hands the encoded bytes to this callback; a stream that fails stops the encoding, and
  // the caller finds the failure in the stream.
  const auto to_stream = [](void* closure, const unsigned char* data, unsigned int length) {
    auto& stream = *static_cast<std::ostream*>(closure);
    stream.write(reinterpret_cast<const char*>(data), length);
    return stream ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
  };
  const cairo_status_t s = cairo_surface_write_to_png_stream(surface.get(), to_stream, &out);
  if (s != CAIRO_STATUS_SUCCESS && s != CAIRO_STATUS_WRITE_ERROR) {
    throw std::runtime_error(fmt::format("cannot encode the PNG: {}", cairo_status_to_string(s)));
  }
}

#else

bool png_supported() { return false; }

void write_png(std::ostream&, double, double, double, const std::function<void(Canvas&)>&) {
  throw std::invalid_argument("this build cannot write PNG (Cairo was not found when it was built); write .svg instead");
}

#endif

}  // namespace roofline::chart
