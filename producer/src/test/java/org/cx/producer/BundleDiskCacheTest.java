package org.cx.producer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Random;
import java.util.TreeMap;
import org.cx.wire.CodeBundle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleDiskCacheTest {
    @TempDir
    Path dir;

    private static CodeBundle bundle(long seed, int bytes) {
        byte[] data = new byte[bytes];
        new Random(seed).nextBytes(data);
        TreeMap<String, byte[]> entries = new TreeMap<>();
        entries.put("data.bin", data);
        return CodeBundle.ofEntries(entries);
    }

    @Test
    void aStoredBundleComesBackCheckedAndTheLeastRecentlyUsedMakeRoom() throws IOException {
        BundleDiskCache cache = new BundleDiskCache(new BundleDiskCache.Settings(dir, 2_500));
        CodeBundle a = bundle(1, 1000);
        CodeBundle b = bundle(2, 1000);
        cache.store(a);
        Files.setLastModifiedTime(dir.resolve(a.hash() + ".jar"), FileTime.fromMillis(1_000)); // the older
        cache.store(b);
        assertArrayEquals(a.bytes(), cache.load(a.hash()).bytes(), "read back, hash checked");
        assertTrue(cache.has(b.hash()));

        Files.setLastModifiedTime(dir.resolve(b.hash() + ".jar"), FileTime.fromMillis(2_000)); // a was just used
        CodeBundle c = bundle(3, 1000);
        cache.store(c);
        assertTrue(cache.has(a.hash()) && cache.has(c.hash()), "the recently used stay");
        assertFalse(cache.has(b.hash()), "the least recently used made room");
    }

    @Test
    void aDamagedBundleIsDroppedAndFetchedAgain() throws IOException {
        BundleDiskCache cache = new BundleDiskCache(new BundleDiskCache.Settings(dir, 1 << 20));
        CodeBundle a = bundle(4, 1000);
        cache.store(a);
        byte[] bytes = Files.readAllBytes(dir.resolve(a.hash() + ".jar"));
        bytes[bytes.length / 2] ^= 1;
        Files.write(dir.resolve(a.hash() + ".jar"), bytes);
        assertNull(cache.load(a.hash()), "a changed byte: not this bundle");
        assertFalse(cache.has(a.hash()), "and it is gone");
    }
}
