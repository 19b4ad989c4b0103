//===- Npy.cpp - read and write NumPy .npy files ----------------*- C++ -*-===//
//
// The .npy format: the magic string "\x93NUMPY", a major and a minor version
// byte, the header length (uint16 little-endian in 1.0, uint32 in 2.0/3.0)
// and a Python dict literal `{'descr': ..., 'fortran_order': ..., 'shape':
// (...), }` padded with spaces and ended by '\n', then the raw data. Standard
// C++ only: mxfp8-launch builds without LLVM.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

using namespace mlir::mxfp8train;

static const char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;

int64_t NpyArray::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t mlir::mxfp8train::getNpyItemSize(const std::string &descr) {
  static const char *const kSizes[][3] = {{"|b1", "|u1", "|i1"},
                                          {"<u2", "<i2", "<f2"},
                                          {"<u4", "<i4", "<f4"},
                                          {"<u8", "<i8", "<f8"}};
  static const int64_t kBytes[] = {1, 2, 4, 8};
  for (int row = 0; row < 4; ++row)
    for (const char *candidate : kSizes[row])
      if (descr == candidate)
        return kBytes[row];
  return 0;
}

/// Maps the byte-order variants NumPy accepts to the canonical descriptor.
static std::string canonicalizeDescr(const std::string &descr) {
  if (descr.size() < 2)
    return descr;
  char order = descr[0];
  std::string kind = descr.substr(1);
  if (order == '=')
    order = '<';
  if (kind.size() == 2 && kind[1] == '1' && (order == '<' || order == '>'))
    order = '|';
  return std::string(1, order) + kind;
}

namespace {
/// A cursor over the header dict.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n'))
      ++pos;
  }
  /// Consumes `c` after optional spaces.
  bool consume(char c) {
    skipSpace();
    if (pos >= text.size() || text[pos] != c)
      return false;
    ++pos;
    return true;
  }
  /// Consumes the word `word` after optional spaces.
  bool consumeWord(const char *word) {
    skipSpace();
    size_t n = std::strlen(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  /// Parses a Python string literal in single or double quotes.
  bool parseQuoted(std::string &value) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos];
    size_t end = text.find(quote, pos + 1);
    if (end == std::string::npos)
      return false;
    value = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return true;
  }
  /// Parses a non-negative decimal integer.
  bool parseDim(int64_t &dim) {
    skipSpace();
    size_t start = pos;
    uint64_t value = 0;
    // Checked before the multiplication: a long digit string must not wrap
    // around uint64 into a small, wrongly accepted dimension.
    const uint64_t limit = uint64_t(std::numeric_limits<int64_t>::max() / 2);
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      uint64_t digit = uint64_t(text[pos] - '0');
      if (value > (limit - digit) / 10)
        return false;
      value = value * 10 + digit;
      ++pos;
    }
    if (pos == start || pos >= text.size())
      return false;
    dim = int64_t(value);
    return true;
  }
  bool startsWith(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }

private:
  const std::string &text;
  size_t pos = 0;
};
} // namespace

/// Parses the header dict of a .npy file.
static bool parseHeader(const std::string &header, const std::string &name,
                        NpyArray &array, bool &fortranOrder,
                        std::string &error) {
  auto fail = [&](const std::string &message) {
    error = name + ": " + message;
    return false;
  };
  HeaderParser p(header);
  bool haveDescr = false, haveOrder = false, haveShape = false;
  if (!p.consume('{'))
    return fail("malformed .npy header: expected '{'");
  while (true) {
    if (p.consume('}'))
      break;
    std::string key;
    if (!p.parseQuoted(key) || !p.consume(':'))
      return fail("malformed .npy header: expected a quoted key");
    if (key == "descr") {
      std::string descr;
      if (!p.parseQuoted(descr))
        return fail("unsupported .npy descr (structured dtypes are not "
                    "supported)");
      array.descr = canonicalizeDescr(descr);
      haveDescr = true;
    } else if (key == "fortran_order") {
      if (p.consumeWord("True"))
        fortranOrder = true;
      else if (p.consumeWord("False"))
        fortranOrder = false;
      else
        return fail("malformed .npy header: fortran_order must be True or "
                    "False");
      haveOrder = true;
    } else if (key == "shape") {
      if (!p.consume('('))
        return fail("malformed .npy header: expected a shape tuple");
      array.shape.clear();
      while (!p.consume(')')) {
        int64_t dim;
        if (!p.parseDim(dim))
          return fail("malformed .npy header: bad dimension in shape");
        array.shape.push_back(dim);
        if (!p.startsWith(')') && !p.consume(','))
          return fail("malformed .npy header: expected ',' in shape");
      }
      haveShape = true;
    } else {
      return fail("malformed .npy header: unknown key '" + key + "'");
    }
    if (!p.consume(',') && !p.startsWith('}'))
      return fail("malformed .npy header: expected ',' or '}'");
  }
  if (!haveDescr || !haveOrder || !haveShape)
    return fail("malformed .npy header: needs 'descr', 'fortran_order' and "
                "'shape'");
  return true;
}

bool mlir::mxfp8train::parseNpy(const std::string &buffer,
                                const std::string &name, NpyArray &out,
                                std::string &error) {
  auto fail = [&](const std::string &message) {
    error = name + ": " + message;
    return false;
  };
  if (buffer.size() < 10 || buffer.compare(0, kMagicSize, kMagic) != 0)
    return fail("not a .npy file (bad magic string)");
  uint8_t major = uint8_t(buffer[6]);
  size_t headerLen = 0, offset = 0;
  if (major == 1) {
    headerLen = uint8_t(buffer[8]) | (size_t(uint8_t(buffer[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (buffer.size() < 12)
      return fail("truncated .npy header");
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(buffer[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return fail("unsupported .npy version " + std::to_string(int(major)));
  }
  if (buffer.size() < offset + headerLen)
    return fail("truncated .npy header");

  NpyArray array;
  bool fortranOrder = false;
  if (!parseHeader(buffer.substr(offset, headerLen), name, array, fortranOrder,
                   error))
    return false;
  if (fortranOrder)
    return fail("Fortran-ordered .npy arrays are not supported; save a "
                "C-contiguous array");
  int64_t itemSize = getNpyItemSize(array.descr);
  if (itemSize == 0)
    return fail("unsupported .npy dtype '" + array.descr +
                "' (supported: little-endian bool, int8-64, uint8-64, "
                "float16/32/64)");
  uint64_t numBytes = uint64_t(itemSize);
  for (int64_t d : array.shape) {
    if (d != 0 &&
        numBytes > std::numeric_limits<uint64_t>::max() / 2 / uint64_t(d))
      return fail("shape too large");
    numBytes *= uint64_t(d);
  }
  size_t dataSize = buffer.size() - offset - headerLen;
  if (dataSize != numBytes)
    return fail("data size " + std::to_string(dataSize) +
                " bytes does not match the header (" +
                std::to_string(numBytes) + " bytes expected)");
  array.data.assign(buffer.begin() + ptrdiff_t(offset + headerLen),
                    buffer.end());
  out = std::move(array);
  return true;
}

bool mlir::mxfp8train::readNpy(const std::string &path, NpyArray &out,
                               std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) {
    error = "cannot read '" + path + "'";
    return false;
  }
  return parseNpy(contents.str(), path, out, error);
}

std::string mlir::mxfp8train::makeNpyHeader(const std::string &descr,
                                            const std::vector<int64_t> &shape) {
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, " + "'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) {
    dict += std::to_string(shape[i]);
    // A 1-tuple keeps its comma: (3,).
    if (i + 1 < shape.size())
      dict += ", ";
    else if (shape.size() == 1)
      dict += ",";
  }
  dict += "), }";
  size_t total = kMagicSize + 4 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::string header(kMagic, kMagicSize);
  header.push_back(char(1));
  header.push_back(char(0));
  header.push_back(char(dict.size() & 0xFF));
  header.push_back(char((dict.size() >> 8) & 0xFF));
  return header + dict;
}

bool mlir::mxfp8train::writeNpy(const std::string &path,
                                const std::string &descr,
                                const std::vector<int64_t> &shape,
                                const void *data, size_t size,
                                std::string &error) {
  int64_t itemSize = getNpyItemSize(descr);
  if (itemSize == 0) {
    error = "unsupported .npy descriptor '" + descr + "'";
    return false;
  }
  int64_t n = itemSize;
  for (int64_t d : shape)
    n *= d;
  if (uint64_t(n) != size) {
    error = "npy data has " + std::to_string(size) +
            " bytes, the shape needs " + std::to_string(n);
    return false;
  }
  std::string header = makeNpyHeader(descr, shape);
  if (header.size() - 10 > 0xFFFF) {
    error = "shape too long for a .npy 1.0 header";
    return false;
  }
  std::string temp = path + ".tmp";
  FILE *file = std::fopen(temp.c_str(), "wb");
  if (!file) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool ok =
      std::fwrite(header.data(), 1, header.size(), file) == header.size() &&
      (size == 0 || std::fwrite(data, 1, size, file) == size);
  ok = (std::fclose(file) == 0) && ok;
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    std::remove(temp.c_str());
    return false;
  }
  return true;
}
