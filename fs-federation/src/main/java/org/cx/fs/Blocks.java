package org.cx.fs;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** The unit of transfer and of checking: blocks of 1 MiB, each with its CRC32C. */
public final class Blocks {
    /** Bytes in a block; the last block of a file may be shorter. */
    public static final int SIZE = 1 << 20;

    private Blocks() {
    }

    /** How many blocks hold {@code size} bytes. */
    public static int count(long size) {
        return (int) ((size + SIZE - 1) / SIZE);
    }

    public static int crc(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /** The CRC32C of the bytes of {@code parts} in order, each between its position and limit (left as they were). */
    public static int crc(ByteBuffer... parts) {
        CRC32C crc = new CRC32C();
        for (ByteBuffer b : parts) {
            crc.update(b.duplicate());
        }
        return (int) crc.getValue();
    }
}
