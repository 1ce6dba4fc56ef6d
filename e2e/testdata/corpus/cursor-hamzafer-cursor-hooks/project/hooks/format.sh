#!/bin/bash
# Read input, do something, exit 0
cat > /dev/null
exit 0
