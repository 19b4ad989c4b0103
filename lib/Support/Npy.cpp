//===- Npy.cpp - read and write NumPy .npy files ----------------*- C++ -*-===//
//
// The .npy format: the magic string "\x93NUMPY", a major and a minor version
// byte, the header length (uint16 little-endian in 1.0, uint32 in 2.0/3.0)
// and a Python dict literal `{'descr': ..., 'fortran_order': ..., 'shape':
// (...), }` padded with spaces and ended by '\n', then the raw data.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace llvm;
using namespace mlir::mxfp8train;

static constexpr StringLiteral kMagic("\x93NUMPY");

int64_t NpyArray::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t mlir::mxfp8train::getNpyItemSize(StringRef descr) {
  return StringSwitch<int64_t>(descr)
      .Cases({"|b1", "|u1", "|i1"}, 1)
      .Cases({"<u2", "<i2", "<f2"}, 2)
      .Cases({"<u4", "<i4", "<f4"}, 4)
      .Cases({"<u8", "<i8", "<f8"}, 8)
      .Default(0);
}

/// Maps the byte-order variants NumPy accepts to the canonical descriptor:
/// `=` (native, little-endian here) becomes `<`, and one-byte types use `|`.
static std::string canonicalizeDescr(StringRef descr) {
  if (descr.size() < 2)
    return descr.str();
  char order = descr.front();
  StringRef kind = descr.drop_front();
  if (order == '=')
    order = '<';
  if (kind.size() == 2 && kind[1] == '1' && (order == '<' || order == '>'))
    order = '|';
  return (Twine(order) + kind).str();
}

static Error makeError(StringRef name, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           Twine(name) + ": " + message);
}

/// Skips spaces.
static StringRef skipSpace(StringRef s) { return s.ltrim(" \t\n"); }

/// Parses a Python string literal in single or double quotes at the start of
/// `s`; returns the rest.
static bool parseQuoted(StringRef &s, StringRef &value) {
  s = skipSpace(s);
  if (s.empty() || (s.front() != '\'' && s.front() != '"'))
    return false;
  char quote = s.front();
  size_t end = s.find(quote, 1);
  if (end == StringRef::npos)
    return false;
  value = s.slice(1, end);
  s = s.drop_front(end + 1);
  return true;
}

/// Consumes `c` after optional spaces.
static bool consume(StringRef &s, char c) {
  s = skipSpace(s);
  if (s.empty() || s.front() != c)
    return false;
  s = s.drop_front();
  return true;
}

/// Parses the header dict of a .npy file.
static Error parseHeader(StringRef header, StringRef name, NpyArray &array,
                         bool &fortranOrder) {
  StringRef s = header;
  bool haveDescr = false, haveOrder = false, haveShape = false;
  if (!consume(s, '{'))
    return makeError(name, "malformed .npy header: expected '{'");
  while (true) {
    s = skipSpace(s);
    if (consume(s, '}'))
      break;
    StringRef key;
    if (!parseQuoted(s, key) || !consume(s, ':'))
      return makeError(name, "malformed .npy header: expected a quoted key");
    if (key == "descr") {
      StringRef descr;
      if (!parseQuoted(s, descr))
        return makeError(name, "unsupported .npy descr (structured dtypes "
                               "are not supported)");
      array.descr = canonicalizeDescr(descr);
      haveDescr = true;
    } else if (key == "fortran_order") {
      s = skipSpace(s);
      if (s.consume_front("True"))
        fortranOrder = true;
      else if (s.consume_front("False"))
        fortranOrder = false;
      else
        return makeError(name, "malformed .npy header: fortran_order must be "
                               "True or False");
      haveOrder = true;
    } else if (key == "shape") {
      if (!consume(s, '('))
        return makeError(name, "malformed .npy header: expected a shape tuple");
      array.shape.clear();
      while (!consume(s, ')')) {
        s = skipSpace(s);
        size_t len = s.find_first_not_of("0123456789");
        uint64_t dim;
        if (len == 0 || len == StringRef::npos ||
            s.take_front(len).getAsInteger(10, dim) ||
            dim > uint64_t(std::numeric_limits<int64_t>::max() / 2))
          return makeError(name, "malformed .npy header: bad dimension in "
                                 "shape");
        array.shape.push_back(int64_t(dim));
        s = s.drop_front(len);
        s = skipSpace(s);
        if (!s.starts_with(")") && !consume(s, ','))
          return makeError(name, "malformed .npy header: expected ',' in "
                                 "shape");
      }
      haveShape = true;
    } else {
      return makeError(name,
                       "malformed .npy header: unknown key '" + key + "'");
    }
    s = skipSpace(s);
    if (!consume(s, ',') && !s.starts_with("}"))
      return makeError(name, "malformed .npy header: expected ',' or '}'");
  }
  if (!haveDescr || !haveOrder || !haveShape)
    return makeError(name, "malformed .npy header: needs 'descr', "
                           "'fortran_order' and 'shape'");
  return Error::success();
}

Expected<NpyArray> mlir::mxfp8train::parseNpy(StringRef buffer,
                                              StringRef name) {
  if (!buffer.starts_with(kMagic) || buffer.size() < 10)
    return makeError(name, "not a .npy file (bad magic string)");
  uint8_t major = buffer[6];
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = uint8_t(buffer[8]) | (size_t(uint8_t(buffer[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (buffer.size() < 12)
      return makeError(name, "truncated .npy header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(buffer[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return makeError(name, "unsupported .npy version " + Twine(int(major)));
  }
  if (buffer.size() < offset + headerLen)
    return makeError(name, "truncated .npy header");

  NpyArray array;
  bool fortranOrder = false;
  if (Error err = parseHeader(buffer.substr(offset, headerLen), name, array,
                              fortranOrder))
    return std::move(err);
  if (fortranOrder)
    return makeError(name, "Fortran-ordered .npy arrays are not supported; "
                           "save a C-contiguous array");
  int64_t itemSize = getNpyItemSize(array.descr);
  if (itemSize == 0)
    return makeError(name, "unsupported .npy dtype '" + array.descr +
                               "' (supported: little-endian bool, int8-64, "
                               "uint8-64, float16/32/64)");
  uint64_t numBytes = uint64_t(itemSize);
  for (int64_t d : array.shape) {
    if (d != 0 &&
        numBytes > std::numeric_limits<uint64_t>::max() / 2 / uint64_t(d))
      return makeError(name, "shape too large");
    numBytes *= uint64_t(d);
  }
  StringRef data = buffer.drop_front(offset + headerLen);
  if (data.size() != numBytes)
    return makeError(name, "data size " + Twine(data.size()) +
                               " bytes does not match the header (" +
                               Twine(numBytes) + " bytes expected)");
  array.data.assign(data.bytes_begin(), data.bytes_end());
  return array;
}

Expected<NpyArray> mlir::mxfp8train::readNpy(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (std::error_code ec = buffer.getError())
    return createStringError(ec, Twine("cannot open '") + path +
                                     "': " + ec.message());
  return parseNpy((*buffer)->getBuffer(), path);
}

/// The version 1.0 header (magic, version, length and padded dict).
static Expected<std::string> makeHeader(StringRef descr,
                                        ArrayRef<int64_t> shape) {
  std::string dict;
  raw_string_ostream os(dict);
  os << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (int64_t d : shape)
    os << d << ", ";
  if (!shape.empty())
    dict.resize(dict.size() - (shape.size() == 1 ? 1 : 2));
  os << "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes; the
  // dict ends with '\n'.
  size_t total = kMagic.size() + 4 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  if (dict.size() > 0xFFFF)
    return createStringError(inconvertibleErrorCode(),
                             "shape too long for a .npy 1.0 header");
  std::string header = kMagic.str();
  header.push_back(1);
  header.push_back(0);
  header.push_back(char(dict.size() & 0xFF));
  header.push_back(char(dict.size() >> 8));
  return header + dict;
}

/// Checks that `data` has the size implied by `descr` and `shape`.
static Error checkData(StringRef descr, ArrayRef<int64_t> shape,
                       ArrayRef<uint8_t> data) {
  int64_t itemSize = getNpyItemSize(descr);
  if (itemSize == 0)
    return createStringError(inconvertibleErrorCode(),
                             "unsupported .npy descriptor '" + descr + "'");
  int64_t n = itemSize;
  for (int64_t d : shape)
    n *= d;
  if (uint64_t(n) != data.size())
    return createStringError(inconvertibleErrorCode(),
                             "npy data has " + Twine(data.size()) +
                                 " bytes, the shape needs " + Twine(n));
  return Error::success();
}

Expected<std::string> mlir::mxfp8train::serializeNpy(StringRef descr,
                                                     ArrayRef<int64_t> shape,
                                                     ArrayRef<uint8_t> data) {
  if (Error err = checkData(descr, shape, data))
    return std::move(err);
  Expected<std::string> header = makeHeader(descr, shape);
  if (!header)
    return header.takeError();
  header->append(data.begin(), data.end());
  return header;
}

Error mlir::mxfp8train::writeNpy(StringRef path, StringRef descr,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<uint8_t> data) {
  if (Error err = checkData(descr, shape, data))
    return err;
  Expected<std::string> header = makeHeader(descr, shape);
  if (!header)
    return header.takeError();
  return writeToOutput(path, [&](raw_ostream &os) {
    os << *header;
    os.write(reinterpret_cast<const char *>(data.data()), data.size());
    return Error::success();
  });
}
