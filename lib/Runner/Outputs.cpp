//===- Outputs.cpp - naming and writing the tensors of a run --------------===//

#include "mxfp8train/Runner/Outputs.h"
#include "mxfp8train/Support/Float.h"
#include "mxfp8train/Support/Npy.h"
#include "mxfp8train/Support/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::mxfp8train;

std::vector<std::string>
mlir::mxfp8train::getResultStems(const Signature &sig) {
  return getUniqueFileStems(
      std::vector<std::string>(sig.resultNames.begin(), sig.resultNames.end()));
}

std::string mlir::mxfp8train::getOutputPath(StringRef dir, StringRef stem,
                                            StringRef suffix) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, stem + suffix + ".npy");
  return std::string(path);
}

llvm::Error mlir::mxfp8train::writeHostTensor(StringRef path,
                                              const HostTensor &tensor,
                                              bool bf16AsFloat32) {
  std::string error;
  std::vector<int64_t> shape(tensor.shape.begin(), tensor.shape.end());
  bool ok;
  if (tensor.type == HostElementType::BF16 && bf16AsFloat32) {
    int64_t n = tensor.getNumElements();
    std::vector<float> widened(static_cast<size_t>(n));
    const uint16_t *src = tensor.data<uint16_t>();
    for (int64_t i = 0; i < n; ++i)
      widened[i] = convertBF16BitsToFloat(src[i]);
    ok = writeNpy(path.str(), "<f4", shape, widened.data(), widened.size() * 4,
                  error);
  } else {
    ok = writeNpy(path.str(), getNpyDescrForKind(tensor.type, bf16AsFloat32),
                  shape, tensor.bytes.data(), tensor.bytes.size(), error);
  }
  if (!ok)
    return llvm::createStringError(error);
  return llvm::Error::success();
}

llvm::Error
mlir::mxfp8train::prepareOutputDir(StringRef dir, const Signature &sig,
                                   const std::vector<HostTensor> *inputs,
                                   bool bf16AsFloat32) {
  auto cannotCreate = [](const llvm::Twine &path, const llvm::Twine &why) {
    return llvm::createStringError("cannot create '" + path + "': " + why);
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return cannotCreate(dir, ec.message());
  if (!llvm::sys::fs::is_directory(dir))
    return cannotCreate(dir, "not a directory");
  if (!inputs)
    return llvm::Error::success();
  SmallString<256> inputDir(dir);
  llvm::sys::path::append(inputDir, "inputs");
  if (std::error_code ec = llvm::sys::fs::create_directories(inputDir))
    return cannotCreate(inputDir, ec.message());
  for (auto [i, input] : llvm::enumerate(*inputs)) {
    SmallString<256> path(inputDir);
    llvm::sys::path::append(path, std::to_string(i) + "_" +
                                      sanitizeFileName(sig.argNames[i]) +
                                      ".npy");
    if (llvm::Error err = writeHostTensor(path, input, bf16AsFloat32))
      return err;
  }
  return llvm::Error::success();
}
