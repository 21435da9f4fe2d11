package org.cx.wire;

import java.util.List;

/**
 * What a computation's tasks run from and read, as one string wherever a computation's code is named (submission,
 * mirror copies, transfers, {@link Message.Code}): its code bundle's hash ({@link CodeBundle#CLASS_PATH}, empty,
 * for none), then, if it has shared data, {@code '+'} and the data bundle's hash. Each part is fetched, kept and
 * served as a bundle of its own, so data shared by several computations travels once, whatever their code.
 */
public final class Sources {
    private static final char SEPARATOR = '+';

    private Sources() {
    }

    /** The sources of a computation from {@code code} reading shared data {@code data} (empty: none). */
    public static String of(String code, String data) {
        return data.isEmpty() ? code : code + SEPARATOR + data;
    }

    /** The code bundle's hash; empty for the class path. */
    public static String code(String sources) {
        int plus = sources.indexOf(SEPARATOR);
        return plus < 0 ? sources : sources.substring(0, plus);
    }

    /** The shared data bundle's hash; empty for none. */
    public static String data(String sources) {
        int plus = sources.indexOf(SEPARATOR);
        return plus < 0 ? "" : sources.substring(plus + 1);
    }

    /** The bundles to fetch: the code bundle unless it is the class path, and the data bundle if there is one. */
    public static List<String> bundles(String sources) {
        String code = code(sources);
        String data = data(sources);
        if (code.isEmpty()) {
            return data.isEmpty() ? List.of() : List.of(data);
        }
        return data.isEmpty() ? List.of(code) : List.of(code, data);
    }

    /** Whether {@code s} is well formed: an optional 64-hex-digit hash, then optionally '+' and another. */
    static boolean valid(String s) {
        String code = code(s);
        String data = data(s);
        boolean hasData = s.indexOf(SEPARATOR) >= 0;
        return (code.isEmpty() || isHash(code)) && (!hasData || isHash(data));
    }

    private static boolean isHash(String h) {
        return h.length() == 64 && h.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f');
    }
}
