package org.cx.fs;

import java.util.regex.Pattern;

/**
 * A placement restriction, as Legion placed objects by host: {@code host=GLOB} and {@code id=GLOB} terms,
 * comma-separated, that a file server's attributes must all match for a file's bytes to go there ({@code *} and
 * {@code ?} as in a shell; empty: anywhere). It is kept in the file's entry, so that re-replication keeps to it too.
 */
public final class OnlyOn {
    private OnlyOn() {
    }

    /** Throws, saying why, unless {@code only} is empty or a list of {@code host=GLOB} / {@code id=GLOB} terms. */
    public static void check(String only) throws FsException {
        if (only == null || only.isEmpty()) {
            return;
        }
        for (String term : only.split(",")) {
            int eq = term.indexOf('=');
            String attribute = eq < 0 ? term : term.substring(0, eq);
            if (eq < 1 || !(attribute.equals("host") || attribute.equals("id")) || eq == term.length() - 1) {
                throw new FsException(FsException.Code.EINVAL, "a placement restriction is host=GLOB or id=GLOB, "
                        + "comma-separated, not '" + term + "'");
            }
        }
    }

    /** Whether a file server of {@code id} on {@code host} satisfies {@code only} (a checked restriction). */
    public static boolean matches(String only, String id, String host) {
        if (only == null || only.isEmpty()) {
            return true;
        }
        for (String term : only.split(",")) {
            int eq = term.indexOf('=');
            String value = term.substring(0, eq).equals("host") ? host : id;
            if (!glob(term.substring(eq + 1)).matcher(value == null ? "" : value).matches()) {
                return false;
            }
        }
        return true;
    }

    private static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char ch : glob.toCharArray()) {
            regex.append(ch == '*' ? ".*" : ch == '?' ? "." : Pattern.quote(String.valueOf(ch)));
        }
        return Pattern.compile(regex.toString());
    }
}
