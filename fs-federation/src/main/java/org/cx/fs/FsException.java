package org.cx.fs;

import java.io.IOException;

/** A file service operation refused or failed, with a POSIX-like code and a message that says what to do. */
public final class FsException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Why, in the words of POSIX errors. */
    public enum Code {
        /** No such file or directory. */
        ENOENT,
        /** It exists already. */
        EEXIST,
        /** A path's parent is not a directory. */
        ENOTDIR,
        /** A directory where a file was expected. */
        EISDIR,
        /** A directory that is not empty. */
        ENOTEMPTY,
        /** The caller's identity may not do this. */
        EACCES,
        /** A malformed request, path or argument. */
        EINVAL,
        /** No space left on a file server's disk. */
        ENOSPC,
        /** No file server (or the name service) can be reached, or one failed mid-transfer. */
        EIO
    }

    private final Code code;

    public FsException(Code code, String message) {
        super(message);
        this.code = code;
    }

    public FsException(Code code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public Code code() {
        return code;
    }
}
