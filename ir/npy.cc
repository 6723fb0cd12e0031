#include "ir/npy.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ir/located_status.h"
#include "ir/read_file.h"
#include "ir/strings.h"

namespace hlo {
namespace {

absl::Status NpyError(std::string_view what, std::string_view msg) {
  return MarkLocated(absl::InvalidArgumentError(StrCat(what, ": error: ", msg)));
}

// The .npy descr of each type we write.
std::string Descr(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kPred:
      return "|b1";
    case PrimitiveType::kS8:
    case PrimitiveType::kS1:
    case PrimitiveType::kS2:
    case PrimitiveType::kS4:
      return "|i1";
    case PrimitiveType::kS16:
      return "<i2";
    case PrimitiveType::kS32:
      return "<i4";
    case PrimitiveType::kS64:
      return "<i8";
    case PrimitiveType::kU16:
      return "<u2";
    case PrimitiveType::kU32:
      return "<u4";
    case PrimitiveType::kU64:
      return "<u8";
    case PrimitiveType::kF16:
      return "<f2";
    case PrimitiveType::kF32:
      return "<f4";
    case PrimitiveType::kF64:
      return "<f8";
    case PrimitiveType::kC64:
      return "<c8";
    case PrimitiveType::kC128:
      return "<c16";
    case PrimitiveType::kBF16:
      return "<u2";
    default:
      return "|u1";  // u8, sub-byte unsigned, f8 and f4 raw bits
  }
}

// Which descrs can hold a type (byte order aside).
bool DescrFits(std::string_view kind_size, PrimitiveType t) {
  if (kind_size == Descr(t).substr(1)) return true;
  int w = ByteWidth(t);
  bool raw = kind_size == StrCat("V", w) || kind_size == StrCat("u", w);
  if (IsSmallFloat(t) && raw) return true;
  if (t == PrimitiveType::kU8 && kind_size == "u1") return true;
  return false;
}

// Finds `'key': value` in the header dict and returns the value text.
std::string_view DictValue(std::string_view header, std::string_view key) {
  std::string pat = StrCat("'", key, "'");
  size_t p = header.find(pat);
  if (p == std::string_view::npos) return {};
  p = header.find(':', p + pat.size());
  if (p == std::string_view::npos) return {};
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  size_t e = p;
  if (e < header.size() && header[e] == '(') {
    e = header.find(')', e);
    return e == std::string_view::npos ? std::string_view{} : header.substr(p, e - p + 1);
  }
  if (e < header.size() && header[e] == '\'') {
    e = header.find('\'', e + 1);
    return e == std::string_view::npos ? std::string_view{} : header.substr(p + 1, e - p - 1);
  }
  while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  return StripWhitespace(header.substr(p, e - p));
}

}  // namespace

namespace {

// How an .npy image's data reads, from its header.
struct NpyLayout {
  size_t data_start = 0;  // the header's end
  char order = '<';       // '<' little-endian, '>' big, '|' not applicable
  bool fortran = false;   // column-major
  Shape shape;            // the parameter's, with the file's dims where unbounded
};

// The header's size (magic, version, length and dict) from the image's
// first bytes (at least 12, or all there are).
absl::StatusOr<size_t> NpyHeaderEnd(std::string_view bytes, std::string_view what) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY") {
    return NpyError(what, "not an .npy file (bad magic)");
  }
  int major = static_cast<unsigned char>(bytes[6]);
  if (major == 1) {
    return 10 + (static_cast<size_t>(static_cast<unsigned char>(bytes[8])) |
                 (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8));
  }
  if (major == 2 || major == 3) {
    if (bytes.size() < 12) return NpyError(what, "truncated .npy header");
    size_t header_len = 0;
    for (int i = 0; i < 4; ++i) {
      header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    }
    return 12 + header_len;
  }
  return NpyError(what, StrCat("unsupported .npy version ", major));
}

// Parses the header of `bytes` (the image, or at least its header) and
// checks its data type and dims against the parameter's shape.
absl::StatusOr<NpyLayout> ParseNpyHeader(std::string_view bytes, const Shape& expected,
                                         std::string_view what) {
  absl::StatusOr<size_t> end = NpyHeaderEnd(bytes, what);
  if (!end.ok()) return end.status();
  const size_t start = bytes[6] == 1 ? 10 : 12;
  if (bytes.size() < *end) return NpyError(what, "truncated .npy header");
  std::string_view header = bytes.substr(start, *end - start);
  std::string_view descr = DictValue(header, "descr");
  std::string_view fortran = DictValue(header, "fortran_order");
  std::string_view shape_text = DictValue(header, "shape");
  if (descr.size() < 2 || shape_text.empty()) {
    return NpyError(what, "the .npy header lacks 'descr' or 'shape'");
  }
  std::vector<int64_t> dims;
  for (std::string_view part : StrSplit(shape_text.substr(1, shape_text.size() - 2), ',', true)) {
    part = StripWhitespace(part);
    if (part.empty()) continue;
    int64_t d = 0;
    if (!ParseInt64(part, &d) || d < 0) return NpyError(what, "bad 'shape' in the .npy header");
    dims.push_back(d);
  }
  if (!expected.IsArray()) return NpyError(what, "an .npy file can only feed an array parameter");
  PrimitiveType t = expected.element_type();
  std::string_view kind_size = descr.substr(1);
  if (!DescrFits(kind_size, t)) {
    return NpyError(what, StrCat("data type '", descr, "' does not fit the parameter type ",
                                 PrimitiveTypeName(t)));
  }
  // An unbounded dimension (`?`) takes the file's size.
  bool fits = static_cast<int64_t>(dims.size()) == expected.rank();
  for (size_t i = 0; fits && i < dims.size(); ++i) {
    const auto d = static_cast<int64_t>(i);
    fits = expected.is_unbounded_dim(d) || dims[i] == expected.dim(d);
  }
  if (!fits) {
    return NpyError(what, StrCat("array has dims (", StrJoin(dims, ","), ") but the parameter is ",
                                 expected.ToString(false)));
  }
  bool unbounded = false;
  for (int64_t i = 0; i < expected.rank(); ++i) unbounded |= expected.is_unbounded_dim(i);
  return NpyLayout{*end, descr[0], fortran == "True" && dims.size() > 1,
                   unbounded ? Shape::Array(t, dims) : expected.WithoutLayout()};
}

absl::Status ShortData(std::string_view what, size_t have, size_t need) {
  return NpyError(what, StrCat("data has ", have, " bytes, ", need, " needed"));
}

// The literal holds the file's data bytes as they were: puts them in
// row-major order and host byte order, and checks sub-byte values.
absl::Status FinishNpyLiteral(Literal& lit, const NpyLayout& layout, std::string_view what) {
  const PrimitiveType t = lit.element_type();
  const size_t need = lit.size_bytes();
  int w = ByteWidth(t);
  int part = IsComplex(t) ? w / 2 : w;
  if (layout.order == '>' && part > 1) {
    for (size_t i = 0; i < need; i += part) std::reverse(lit.data() + i, lit.data() + i + part);
  }
  if (layout.fortran) {
    // Column-major data: element (i0..in) sits at sum(i_k * prod(d_0..d_{k-1})).
    absl::Span<const int64_t> dims = lit.shape().dims();
    auto c = Literal::CreateUninitialized(lit.shape());
    if (!c.ok()) return c.status();
    const int64_t n = lit.element_count(), rank = static_cast<int64_t>(dims.size());
    std::vector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t f = 0, stride = 1;
      for (int64_t k = 0; k < rank; ++k) {
        f += idx[k] * stride;
        stride *= dims[k];
      }
      std::memcpy(c->data() + i * w, lit.data() + f * w, w);
      for (int64_t k = rank - 1; k >= 0; --k) {
        if (++idx[k] < dims[k]) break;
        idx[k] = 0;
      }
    }
    lit = *std::move(c);
  }
  // Sub-byte integers and pred must hold valid values.
  if (t == PrimitiveType::kPred || (IsInteger(t) && BitWidth(t) < 8)) {
    for (int64_t i = 0; i < lit.element_count(); ++i) {
      int64_t v = lit.GetInt(i);
      int64_t raw = IsSignedInt(t) ? static_cast<int8_t>(lit.data()[i]) : lit.data()[i];
      if ((t == PrimitiveType::kPred && raw > 1) || (t != PrimitiveType::kPred && raw != v)) {
        return NpyError(
            what, StrCat("element ", i, " (", raw, ") is out of range for ", PrimitiveTypeName(t)));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> ReadNpy(std::string_view bytes, const Shape& expected,
                                std::string_view what) {
  absl::StatusOr<NpyLayout> layout = ParseNpyHeader(bytes, expected, what);
  if (!layout.ok()) return layout.status();
  std::string_view data = bytes.substr(layout->data_start);
  auto lit = Literal::CreateUninitialized(layout->shape);
  if (!lit.ok()) return lit.status();
  const size_t need = lit->size_bytes();
  if (data.size() < need) return ShortData(what, data.size(), need);
  if (need > 0) std::memcpy(lit->data(), data.data(), need);
  if (absl::Status st = FinishNpyLiteral(*lit, *layout, what); !st.ok()) return st;
  return lit;
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path, const Shape& expected) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return MarkLocated(
        absl::NotFoundError(StrCat(path, ": error: cannot open: ", std::strerror(errno))));
  }
  struct FileCloser {
    FILE* f;
    ~FileCloser() { std::fclose(f); }
  } closer{f};
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    // A pipe or other stream: read whole, from this one opening.
    absl::StatusOr<std::string> bytes = ReadRestOfFile(f, path);
    if (!bytes.ok()) return bytes.status();
    return ReadNpy(*bytes, expected, path);
  }
  const size_t file_size = static_cast<size_t>(st.st_size);
  auto read_error = [&] {
    const char* reason = std::ferror(f) ? std::strerror(errno) : "the file ended early";
    return MarkLocated(absl::DataLossError(StrCat(path, ": error: cannot read: ", reason)));
  };
  // The first bytes give the header's size; then the whole header.
  std::string head(std::min<size_t>(file_size, 12), '\0');
  if (std::fread(head.data(), 1, head.size(), f) != head.size()) return read_error();
  absl::StatusOr<size_t> end = NpyHeaderEnd(head, path);
  if (!end.ok()) return end.status();
  if (*end > file_size) return NpyError(path, "truncated .npy header");
  head.resize(*end);
  if (std::fseek(f, 0, SEEK_SET) != 0 || std::fread(head.data(), 1, *end, f) != *end) {
    return read_error();
  }
  absl::StatusOr<NpyLayout> layout = ParseNpyHeader(head, expected, path);
  if (!layout.ok()) return layout.status();
  // The data's size is checked before the literal is made.
  const size_t have = file_size - *end;
  const int64_t count = layout->shape.ElementCount();
  const int64_t width = ByteWidth(expected.element_type());
  if (count >= 0 && count <= INT64_MAX / width && have < static_cast<size_t>(count * width)) {
    return ShortData(path, have, static_cast<size_t>(count * width));
  }
  auto lit = Literal::CreateUninitialized(layout->shape);
  if (!lit.ok()) return lit.status();
  if (lit->size_bytes() > 0 &&
      std::fread(lit->data(), 1, lit->size_bytes(), f) != lit->size_bytes()) {
    return read_error();
  }
  if (absl::Status s = FinishNpyLiteral(*lit, *layout, path); !s.ok()) return s;
  return lit;
}

namespace {

absl::StatusOr<std::string> NpyHeader(const Literal& lit) {
  if (lit.IsTuple() || !lit.shape().IsArray()) {
    return absl::InvalidArgumentError("only arrays can be written as .npy");
  }
  std::string shape = "(";
  for (int64_t i = 0; i < lit.shape().rank(); ++i) {
    StrAppend(&shape, lit.shape().dim(i),
              lit.shape().rank() == 1 ? "," : (i + 1 < lit.shape().rank() ? ", " : ""));
  }
  shape += ")";
  std::string header = StrCat("{'descr': '", Descr(lit.element_type()),
                              "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad so the data starts on a 64-byte boundary; the header ends in '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  return out;
}

std::string_view NpyData(const Literal& lit) {
  return std::string_view(reinterpret_cast<const char*>(lit.data()), lit.size_bytes());
}

}  // namespace

absl::Status StreamNpy(const Literal& lit, ByteSink sink) {
  absl::StatusOr<std::string> header = NpyHeader(lit);
  if (!header.ok()) return header.status();
  absl::Status st = sink(*header);
  return st.ok() ? sink(NpyData(lit)) : st;
}

absl::StatusOr<std::string> WriteNpy(const Literal& lit) {
  absl::StatusOr<std::string> out = NpyHeader(lit);
  if (out.ok()) out->append(NpyData(lit));
  return out;
}

}  // namespace hlo
