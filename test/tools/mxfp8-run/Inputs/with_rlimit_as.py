#!/usr/bin/env python3
"""with_rlimit_as.py BYTES CMD ARGS...: run CMD with RLIMIT_AS lowered to
BYTES (soft and hard), as `ulimit -v` would; exits with CMD's status."""

import os
import resource
import sys

limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
os.execvp(sys.argv[2], sys.argv[2:])
