#include "ir/sparsity_config.h"

#include <cctype>

#include "ir/strings.h"

namespace hlo {
namespace {

// A cursor over the text; every failure records the first error.
class Reader {
 public:
  Reader(std::string_view text, std::string* error, size_t* offset)
      : text_(text), error_(error), offset_(offset) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool At(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Expect(char c, std::string_view what) {
    if (At(c)) {
      ++pos_;
      return true;
    }
    return Fail(StrCat("expected ", what));
  }
  bool Fail(std::string message) {
    SkipSpace();
    *error_ = std::move(message);
    *offset_ = pos_;
    return false;
  }
  // name '='
  bool Key(std::string* out) {
    SkipSpace();
    size_t begin = pos_;
    key_at_ = begin;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == begin) return Fail("expected an attribute name");
    *out = std::string(text_.substr(begin, pos_ - begin));
    return Expect('=', StrCat("'=' after '", *out, "'"));
  }
  // A run of [-0-9x] characters: an integer or NxM.
  std::string_view Word() {
    SkipSpace();
    size_t begin = pos_;
    while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '-' || text_[pos_] == 'x')) {
      ++pos_;
    }
    word_at_ = begin;
    return text_.substr(begin, pos_ - begin);
  }
  bool FailAtWord(std::string message) { return FailAt(word_at_, std::move(message)); }
  bool FailAtKey(std::string message) { return FailAt(key_at_, std::move(message)); }
  bool FailAt(size_t offset, std::string message) {
    *error_ = std::move(message);
    *offset_ = offset;
    return false;
  }
  bool Int(int64_t* out, std::string_view what) {
    std::string_view w = Word();
    if (!ParseInt64(w, out)) return FailAtWord(StrCat("expected an integer for '", what, "'"));
    return true;
  }
  bool Done() {
    SkipSpace();
    return pos_ == text_.size();
  }

 private:
  std::string_view text_;
  std::string* error_;
  size_t* offset_;
  size_t pos_ = 0;
  size_t word_at_ = 0;
  size_t key_at_ = 0;
};

// '{' [key '=' value]* '}' for one side.
bool ReadTensor(Reader& r, TensorSparsity* out) {
  if (!r.Expect('{', "'{' to open the side's sparsity")) return false;
  while (!r.At('}')) {
    std::string key;
    if (!r.Key(&key)) return false;
    if (key == "sparsity") {
      std::string_view w = r.Word();
      size_t x = w.find('x');
      int64_t n = 0, m = 0;
      if (x == std::string_view::npos || !ParseInt64(w.substr(0, x), &n) ||
          !ParseInt64(w.substr(x + 1), &m) || n < 0 || m < 0) {
        return r.FailAtWord("expected 'sparsity=NxM' (num_non_zero x block_size)");
      }
      out->num_non_zero = n;
      out->block_size = m;
    } else if (key == "dimension") {
      if (!r.Int(&out->dimension, "dimension")) return false;
    } else if (key == "stride") {
      if (!r.Int(&out->stride, "stride")) return false;
    } else {
      return r.FailAtKey(
          StrCat("unknown sparsity field '", key, "'; expected sparsity, dimension or stride"));
    }
  }
  return r.Expect('}', "'}'");
}

void AppendTensor(std::string& out, std::string_view side, const TensorSparsity& t) {
  StrAppend(&out, side, "={sparsity=", t.num_non_zero, "x", t.block_size,
            " dimension=", t.dimension, " stride=", t.stride, "}");
}

}  // namespace

std::optional<SparsityConfig> ReadSparsityConfig(std::string_view text, std::string* error,
                                                 size_t* error_offset) {
  Reader r(text, error, error_offset);
  SparsityConfig config;
  if (!r.Expect('{', "'{' to open sparsity_config")) return std::nullopt;
  while (!r.At('}')) {
    std::string key;
    if (!r.Key(&key)) return std::nullopt;
    if (key != "lhs" && key != "rhs") {
      r.FailAtKey(StrCat("unknown sparsity_config side '", key, "'; expected lhs or rhs"));
      return std::nullopt;
    }
    std::optional<TensorSparsity>& side = key == "lhs" ? config.lhs : config.rhs;
    if (!side) side.emplace();
    if (!ReadTensor(r, &*side)) return std::nullopt;
  }
  if (!r.Expect('}', "'}'")) return std::nullopt;
  if (!r.Done()) {
    r.Fail("unexpected text after sparsity_config's '}'");
    return std::nullopt;
  }
  return config;
}

std::string SparsityConfigText(const SparsityConfig& config) {
  std::string out = "{";
  if (config.lhs) AppendTensor(out, "lhs", *config.lhs);
  if (config.rhs) {
    if (config.lhs) out += ' ';
    AppendTensor(out, "rhs", *config.rhs);
  }
  out += '}';
  return out;
}

}  // namespace hlo
