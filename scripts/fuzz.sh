#!/usr/bin/env bash
# Fuzzes the frame decoder and every message codec (wire's FrameFuzzTest, Jazzer) for as long as asked.
#   scripts/fuzz.sh [DURATION]      e.g. 10m, 2h; default 5m
# A crash is written to wire/src/test/resources/org/cx/wire/FrameFuzzTestInputs/anyFrameIsAMessageOrIsRefused/
# and fails the run; fix it, give the file a name that says what it was, and commit it: every build replays it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
./mvnw -B -q install -DskipTests -pl wire -am
./mvnw -B test -pl wire -Dtest=FrameFuzzTest -Djazzer.max_duration="${1:-5m}"
