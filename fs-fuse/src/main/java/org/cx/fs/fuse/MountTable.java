package org.cx.fs.fuse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads a Linux mount table ({@code /proc/self/mountinfo}, described in proc(5)): whether a FUSE file system is
 * mounted at a directory. jfuse does not say when the kernel ended its session, so a mount learns that it was
 * unmounted from outside by looking here.
 */
final class MountTable {
    private MountTable() {}

    /**
     * Whether {@code table} lists a FUSE mount at {@code dir} (a real path); true when the table cannot be read, as
     * then nothing can be known.
     */
    static boolean fuseAt(Path table, Path dir) {
        try {
            return fuseDevice(Files.readAllLines(table), dir).isPresent();
        } catch (IOException e) {
            return true; // no table here (not Linux), or none readable
        }
    }

    /** The device ({@code major:minor}) of the FUSE mount the table's {@code lines} list at {@code dir}, if any. */
    static Optional<String> fuseDevice(List<String> lines, Path dir) {
        String wanted = dir.toString();
        for (String line : lines) {
            // id parent major:minor root MOUNT-POINT options [optional fields] - TYPE source super-options
            String[] fields = line.split(" ");
            int separator = List.of(fields).indexOf("-");
            if (fields.length > 4 && separator > 0 && separator + 1 < fields.length
                    && unescape(fields[4]).equals(wanted) && fields[separator + 1].startsWith("fuse")) {
                return Optional.of(fields[2]);
            }
        }
        return Optional.empty();
    }

    /** Undoes the table's octal escapes of space, tab, newline and backslash ({@code \040}). */
    static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
