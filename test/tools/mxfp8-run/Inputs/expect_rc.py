#!/usr/bin/env python3
"""Runs a command and exits 0 iff its exit status is the expected one.

Usage: expect_rc.py RC COMMAND ARGS...  (the command's output is passed on)
"""

import subprocess
import sys

rc = subprocess.call(sys.argv[2:])
if rc != int(sys.argv[1]):
    print("expect_rc.py: exit status %d, expected %s" % (rc, sys.argv[1]))
    sys.exit(1)
