package org.cx.examples.sw;

import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A database sequence that scored against a query. */
public record Hit(String query, String target, int score) {
    /** Best first; among equal scores, by name (so that every run ranks alike). */
    static final Comparator<Hit> RANK = Comparator.comparingInt(Hit::score).reversed().thenComparing(Hit::target);

    /** The best {@code top} hits of each query in {@code hits}, queries in their first order, each best first. */
    static Hit[] best(List<Hit> hits, int top) {
        Map<String, List<Hit>> byQuery = new LinkedHashMap<>();
        for (Hit h : hits) {
            byQuery.computeIfAbsent(h.query(), q -> new java.util.ArrayList<>()).add(h);
        }
        return byQuery.values().stream().flatMap(l -> l.stream().sorted(RANK).limit(top)).toArray(Hit[]::new);
    }

    static Hit[] best(Hit[] hits, int top) {
        return best(Arrays.asList(hits), top);
    }
}
