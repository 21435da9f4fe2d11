/**
 * The federation as a {@code java.nio.file} file system: {@code cx://HOST:PORT/dir/file} paths (the name service's
 * address, then the path), so that unmodified NIO code reads and writes federated files.
 */
package org.cx.fs.nio;
