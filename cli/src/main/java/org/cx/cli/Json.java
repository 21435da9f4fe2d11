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

    private static void write(StringBuilder sb, Object value, String indent) {
        switch (value) {
            case null -> sb.append("null");
            case Map<?, ?> map -> {
                sb.append("{\n");
                for (Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<?, ?> e = it.next();
                    sb.append(indent).append("  ");
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    write(sb, e.getValue(), indent + "  ");
                    sb.append(it.hasNext() ? ",\n" : "\n");
                }
                sb.append(indent).append('}');
            }
            case List<?> list -> {
                sb.append("[\n");
                for (int i = 0; i < list.size(); i++) {
                    sb.append(indent).append("  ");
                    write(sb, list.get(i), indent + "  ");
                    sb.append(i + 1 < list.size() ? ",\n" : "\n");
                }
                sb.append(indent).append(']');
            }
            case Double d -> sb.append(d.isNaN() || d.isInfinite() ? "null" : String.format(java.util.Locale.ROOT, "%.6g", d));
            case Number n -> sb.append(n);
            case Boolean b -> sb.append(b);
            default -> string(sb, value.toString());
        }
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
