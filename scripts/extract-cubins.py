#!/usr/bin/env python3
# ===- extract-cubins.py - the cubins embedded in AOT host objects ---------=== #
#
# An object of `mxfp8-compile --device=cuda` (or scripts/aot-compile.sh)
# embeds its kernels as one cubin per gpu.module, a CUDA ELF image inside a
# read-only data section of the x86-64 object. This finds every such image
# (ELF64 with machine EM_CUDA, its extent taken from its own section and
# program header tables), writes it as OUT/<object>.<i>.cubin and prints one
# line per cubin:
#
#   cubin OUT/f.cuda.0.cubin arch=sm_100 bytes=123456 kernels=3
#     kernel quantize_1x32_bf16_e4m3_rceil_rowmajor_64x256
#     ...
#
# `cuobjdump -sass` and `nvdisasm` read the files (bench/device/sass-check.sh
# on the GPU machine); `llvm-readelf -h` shows the architecture.
#
#   scripts/extract-cubins.py OBJECT... [--out DIR]
#
# Exit status 1 when an object holds no cubin, 2 when a file is not an ELF
# object. Standard library only (the GPU machine has no LLVM).
#
# ===----------------------------------------------------------------------=== #

import argparse
import os
import struct
import sys

EM_CUDA = 190


def sections(image):
    """[(name, offset, size, type)] of the ELF64 little-endian `image`."""
    (shoff,) = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", image, 0x3A)
    headers = []
    for i in range(shnum):
        name, kind, _, _, offset, size = struct.unpack_from(
            "<IIQQQQ", image, shoff + i * shentsize)
        headers.append((name, offset, size, kind))
    if not headers:
        return []
    strtab = headers[shstrndx]
    result = []
    for name, offset, size, kind in headers:
        start = strtab[1] + name
        end = image.index(b"\0", start)
        result.append((image[start:end].decode("latin-1"), offset, size, kind))
    return result


def image_size(image):
    """Bytes of the ELF64 image at the start of `image` (the furthest of its
    section headers, program headers and section contents)."""
    (phoff,) = struct.unpack_from("<Q", image, 0x20)
    (shoff,) = struct.unpack_from("<Q", image, 0x28)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", image, 0x36)
    end = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    for _, offset, size, kind in sections(image[:end] if end <= len(image) else image):
        if kind != 8:  # SHT_NOBITS takes no file space
            end = max(end, offset + size)
    return end


def is_cuda_elf(data, pos):
    return (data[pos:pos + 4] == b"\x7fELF" and data[pos + 4] == 2 and
            data[pos + 5] == 1 and
            struct.unpack_from("<H", data, pos + 18)[0] == EM_CUDA)


def arch(image):
    """sm_XY from the e_flags of a CUDA ELF image (the SM is bits 8-15 in
    the ABI of CUDA 12.8 and later, bits 0-7 before)."""
    (flags,) = struct.unpack_from("<I", image, 0x30)
    abi = image[8]
    sm = (flags >> 8) & 0xFF if abi >= 8 else flags & 0xFF
    return "sm_%d" % sm


def kernels(image):
    return sorted(name[len(".text."):] for name, _, _, _ in sections(image)
                  if name.startswith(".text."))


def extract(path):
    """The CUDA ELF images embedded in the host object at `path`."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("%s is not an ELF64 object" % path)
    images = []
    for name, offset, size, kind in sections(data):
        if kind == 8 or size < 64:
            continue
        pos = data.find(b"\x7fELF", offset, offset + size)
        while pos >= 0:
            if is_cuda_elf(data, pos):
                end = pos + image_size(data[pos:offset + size])
                if end <= offset + size:
                    images.append(data[pos:end])
                    pos = data.find(b"\x7fELF", end, offset + size)
                    continue
            pos = data.find(b"\x7fELF", pos + 1, offset + size)
    return images


def main():
    parser = argparse.ArgumentParser(
        description="write the cubins embedded in AOT host objects")
    parser.add_argument("objects", nargs="+")
    parser.add_argument("--out", default=".", help="folder for the .cubin files")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    status = 0
    for path in args.objects:
        try:
            images = extract(path)
        except (ValueError, struct.error, IndexError) as ex:
            print("extract-cubins: error: %s" % ex, file=sys.stderr)
            return 2
        if not images:
            print("extract-cubins: error: no cubin in %s" % path, file=sys.stderr)
            status = 1
        base = os.path.basename(path)
        if base.endswith(".o"):
            base = base[:-2]
        for i, image in enumerate(images):
            out = os.path.join(args.out, "%s.%d.cubin" % (base, i))
            with open(out, "wb") as f:
                f.write(image)
            names = kernels(image)
            print("cubin %s arch=%s bytes=%d kernels=%d" % (out, arch(image),
                                                            len(image), len(names)))
            for name in names:
                print("  kernel %s" % name)
    return status


if __name__ == "__main__":
    sys.exit(main())
