package org.cx.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Read-only data that every task of a computation may read ({@link TaskContext#sharedData}), attached at
 * submission ({@link TaskServer#submit(Task, SharedData, ResultListener)}) instead of being carried in each task's
 * fields: it travels down the tree of servers once, and each producer fetches it once and keeps it for later
 * computations. Named entries of bytes, identified by their content: a second computation with the same entries
 * sends none of it.
 */
public final class SharedData {
    private final Map<String, byte[]> entries;

    private SharedData(Map<String, byte[]> entries) {
        this.entries = Collections.unmodifiableMap(entries);
    }

    /** One entry. */
    public static SharedData of(String name, byte[] bytes) {
        return new Builder().add(name, bytes).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The entries, by name (the arrays are the caller's: do not change them after building). */
    public Map<String, byte[]> entries() {
        return entries;
    }

    /** Collects named entries. */
    public static final class Builder {
        private final Map<String, byte[]> entries = new TreeMap<>();

        private Builder() {
        }

        /** Adds entry {@code name} (a path-like name, e.g. "db/proteins.fasta") holding {@code bytes}. */
        public Builder add(String name, byte[] bytes) {
            if (name == null || name.isEmpty() || name.startsWith("/") || name.endsWith("/")) {
                throw new IllegalArgumentException("a shared data entry needs a relative name, got '" + name + "'");
            }
            if (entries.putIfAbsent(name, bytes.clone()) != null) {
                throw new IllegalArgumentException("two shared data entries are named '" + name + "'");
            }
            return this;
        }

        /** Adds entry {@code name} holding the contents of {@code file}, read now. */
        public Builder add(String name, Path file) {
            try {
                return add(name, Files.readAllBytes(file));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read shared data " + file + ": " + e.getMessage(), e);
            }
        }

        public SharedData build() {
            if (entries.isEmpty()) {
                throw new IllegalArgumentException("shared data needs at least one entry");
            }
            return new SharedData(entries);
        }
    }
}
