package org.cx.fs;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.cx.fs.FsException.Code;

/** The file service's JSON: requests, replies, journal records and snapshots. */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private Json() {
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static ObjectNode op(String op) {
        return object().put("op", op);
    }

    static JsonNode tree(Object value) {
        return MAPPER.valueToTree(value);
    }

    static Entry entry(JsonNode node) throws FsException {
        try {
            return MAPPER.treeToValue(node, Entry.class);
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new FsException(Code.EINVAL, "not an entry: " + e.getMessage());
        }
    }

    /** The text field {@code name} of {@code request}; EINVAL saying which is missing. */
    static String text(JsonNode request, String name) throws FsException {
        JsonNode v = request.get(name);
        if (v == null || !v.isTextual()) {
            throw new FsException(Code.EINVAL, "'" + request.path("op").asText("?") + "' needs the text field '"
                    + name + "'");
        }
        return v.asText();
    }

    static FsPath path(JsonNode request, String name) throws FsException {
        return FsPath.of(text(request, name));
    }
}
