package org.cx.harness;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * The bench output as JSON, written by Jackson. Measured figures are doubles: they are written with six significant
 * digits (more is noise), and a figure that could not be measured (NaN, infinite) as {@code null}, which every JSON
 * reader accepts.
 */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new SimpleModule("cx-figures").addSerializer(Double.class, new FigureSerializer()))
            .enable(SerializationFeature.INDENT_OUTPUT);

    private Json() {
    }

    /** {@code value} (maps, lists, strings, numbers, booleans) as indented JSON, ending with a newline. */
    public static String write(Object value) {
        return serialize(value, true) + "\n";
    }

    /** The same on one line, without indentation: for files of many small objects. */
    public static String compact(Object value) {
        return serialize(value, false);
    }

    private static String serialize(Object value, boolean indented) {
        try {
            return indented ? MAPPER.writeValueAsString(value)
                    : MAPPER.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write the bench output as JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static final class FigureSerializer extends JsonSerializer<Double> {
        @Override
        public void serialize(Double d, JsonGenerator out, SerializerProvider provider) throws IOException {
            if (d.isNaN() || d.isInfinite()) {
                out.writeNull();
            } else {
                out.writeNumber(String.format(Locale.ROOT, "%.6g", d));
            }
        }
    }
}
