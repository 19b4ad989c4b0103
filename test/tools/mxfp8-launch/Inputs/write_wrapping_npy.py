# Writes a version 1.0 .npy file whose shape is (40000044576644749211,): the
# dimension does not fit in uint64. A reader that multiplies before checking
# wraps it around (found by fuzz/npy, the .npy fuzzer).
import struct
import sys

header = "{'descr': '<f4', 'fortran_order': False, 'shape': (40000044576644749211,), }"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
    f.write(header.encode())
    f.write(struct.pack("<4f", 1, 2, 3, 4))
