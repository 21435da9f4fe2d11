package org.cx.cli;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Writes maps, lists, strings, numbers and booleans as JSON: all the bench output needs. */
final class Json {

    private Json() {
    }

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, "");
        return sb.append('\n').toString();
    }

    /** The same on one line, without indentation: for files of many small objects. */
    static String compact(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, null);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object value, String indent) {
        switch (value) {
            case null -> sb.append("null");
            case Map<?, ?> map -> {
                sb.append('{').append(indent == null ? "" : "\n");
                for (Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<?, ?> e = it.next();
                    startItem(sb, indent);
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    write(sb, e.getValue(), deeper(indent));
                    endItem(sb, indent, it.hasNext());
                }
                sb.append(indent == null ? "" : indent).append('}');
            }
            case List<?> list -> {
                sb.append('[').append(indent == null ? "" : "\n");
                for (int i = 0; i < list.size(); i++) {
                    startItem(sb, indent);
                    write(sb, list.get(i), deeper(indent));
                    endItem(sb, indent, i + 1 < list.size());
                }
                sb.append(indent == null ? "" : indent).append(']');
            }
            case Double d -> sb.append(d.isNaN() || d.isInfinite() ? "null" : String.format(java.util.Locale.ROOT, "%.6g", d));
            case Number n -> sb.append(n);
            case Boolean b -> sb.append(b);
            default -> string(sb, value.toString());
        }
    }

    /** {@code indent} null: compact, on one line. */
    private static void startItem(StringBuilder sb, String indent) {
        if (indent != null) {
            sb.append(indent).append("  ");
        }
    }

    private static void endItem(StringBuilder sb, String indent, boolean more) {
        if (indent == null) {
            sb.append(more ? ", " : "");
        } else {
            sb.append(more ? ",\n" : "\n");
        }
    }

    private static String deeper(String indent) {
        return indent == null ? null : indent + "  ";
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
