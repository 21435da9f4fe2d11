# Sourced by ./mvnw and ./cx: exports JAVA_HOME pointing at a JDK >= 21.
# Order: $JAVA_HOME, the `java` on PATH, then the usual install folders (newest first).
# CX compiles for Java 21; the machine's default `java` may be older.
cx_jdk_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
}
cx_jdk_ok() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] && [ "$(cx_jdk_major "$1")" -ge 21 ] 2>/dev/null
}
cx_find_jdk() {
  if [ -n "${JAVA_HOME-}" ] && cx_jdk_ok "$JAVA_HOME"; then echo "$JAVA_HOME"; return 0; fi
  if command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    if cx_jdk_ok "$candidate"; then echo "$candidate"; return 0; fi
  fi
  case $- in *f*) cx_noglob=1 ;; *) cx_noglob= ;; esac
  set +f # mvnw runs with globbing off
  for candidate in $(ls -d /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
                        /Library/Java/JavaVirtualMachines/*/Contents/Home 2>/dev/null | sort -rV); do
    if cx_jdk_ok "$candidate"; then echo "$candidate"; [ -z "$cx_noglob" ] || set -f; return 0; fi
  done
  [ -z "$cx_noglob" ] || set -f
  return 1
}
if ! CX_JDK=$(cx_find_jdk); then
  echo "CX needs a JDK 21 or newer and found none: install one (e.g. 'apt-get install openjdk-21-jdk-headless') or set JAVA_HOME to it." >&2
  exit 1
fi
JAVA_HOME=$CX_JDK
export JAVA_HOME
# JDK 24+ warns when libraries use sun.misc.Unsafe memory access (Kryo, Maven's Guice) or load native code (Netty's
# epoll transport); they still need to.
CX_JDK_MAJOR=$(cx_jdk_major "$JAVA_HOME")
CX_JVM_FLAGS=""
if [ "$CX_JDK_MAJOR" -ge 24 ]; then
  CX_JVM_FLAGS="--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
  MAVEN_OPTS="${MAVEN_OPTS:-} $CX_JVM_FLAGS"
  export MAVEN_OPTS
fi
export CX_JDK_MAJOR CX_JVM_FLAGS
