package org.cx.fs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.cx.fs.FsException.Code;

/**
 * Paths a file server is asked for, confined to its root: no absolute path, no {@code ..}, nothing in the service's
 * own directory, and no symbolic link that leads out (the real path, links followed, must still be under the root).
 */
final class SafePaths {
    private SafePaths() {
    }

    /**
     * The existing regular file {@code relative} names under {@code root}.
     *
     * @throws FsException EACCES if it would leave the root, ENOENT if it is not there, EINVAL if not a file
     */
    static Path file(Path root, String relative, String reserved) throws FsException {
        if (relative.isEmpty() || relative.startsWith("/") || relative.indexOf('\0') >= 0) {
            throw new FsException(Code.EACCES, "'" + relative + "' is not a path relative to the file server's "
                    + "root");
        }
        Path p = root.resolve(relative).normalize();
        for (Path name : root.relativize(p)) {
            if (name.toString().equals("..")) {
                throw new FsException(Code.EACCES, "'" + relative + "' leads out of the file server's root");
            }
        }
        if (!p.startsWith(root) || p.equals(root) || p.startsWith(root.resolve(reserved))) {
            throw new FsException(Code.EACCES, "'" + relative + "' is not a file the file server exports");
        }
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new FsException(Code.ENOENT, "'" + relative + "' is not on the file server's disk");
        }
        try {
            Path real = p.toRealPath();
            if (!real.startsWith(root.toRealPath()) || real.startsWith(root.toRealPath().resolve(reserved))) {
                throw new FsException(Code.EACCES, "'" + relative + "' is a link that leads out of the file server's"
                        + " root");
            }
            if (!Files.isRegularFile(real)) {
                throw new FsException(Code.EINVAL, "'" + relative + "' is not a regular file");
            }
            return real;
        } catch (IOException e) {
            throw new FsException(Code.ENOENT, "'" + relative + "': " + e.getMessage());
        }
    }
}
