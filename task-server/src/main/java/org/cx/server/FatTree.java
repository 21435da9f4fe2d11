package org.cx.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sibling-connected fat tree of the production network (paper §4.2, Fig. 4), as pure data: server ids by
 * tree position, nothing else.
 *
 * <p>Positions: 0 is the primary root, 1 the secondary root (the "other root", sibling of the primary), and
 * positions 2, 3, ... are the rest of a complete B-ary tree under the primary root in breadth-first order. Because
 * the positions are always 0..n-1, the tree is height-balanced, and the server at position n-1 is the most recently
 * added leaf.
 *
 * <p>Edges: parent to child, between siblings, and from each server to its parent's siblings. A server's mirror
 * group is its siblings; a lone child's is its parent. The roots are each other's siblings.
 *
 * <ul>
 *   <li>{@link #join} puts a server at the new right-most leaf: O(1) here, and O(B) servers see a changed
 *       neighbourhood.</li>
 *   <li>{@link #remove} fills the hole with the right-most leaf (when the primary root fails, the secondary takes its
 *       place and the leaf fills the secondary's): at most two servers change position.</li>
 * </ul>
 */
public final class FatTree {
    private final int branching;
    private final List<Integer> byPosition = new ArrayList<>();
    private final Map<Integer, Integer> positionOf = new HashMap<>();

    public FatTree(int branching) {
        if (branching < 2) {
            throw new IllegalArgumentException("branching factor must be at least 2, got " + branching);
        }
        this.branching = branching;
    }

    /** A tree with {@code ids} at positions 0, 1, 2, ... */
    public static FatTree of(int branching, List<Integer> ids) {
        FatTree tree = new FatTree(branching);
        ids.forEach(tree::join);
        return tree;
    }

    public int branching() {
        return branching;
    }

    public int size() {
        return byPosition.size();
    }

    public boolean contains(int id) {
        return positionOf.containsKey(id);
    }

    /** Ids by position. */
    public List<Integer> ids() {
        return Collections.unmodifiableList(byPosition);
    }

    public int idAt(int position) {
        return byPosition.get(position);
    }

    public int position(int id) {
        Integer p = positionOf.get(id);
        if (p == null) {
            throw new IllegalArgumentException("server " + id + " is not in the tree");
        }
        return p;
    }

    /** Adds {@code id} as the new right-most leaf; returns its position. */
    public int join(int id) {
        if (positionOf.containsKey(id)) {
            throw new IllegalArgumentException("server " + id + " is already in the tree");
        }
        byPosition.add(id);
        positionOf.put(id, byPosition.size() - 1);
        return byPosition.size() - 1;
    }

    /**
     * What {@link #remove} did.
     *
     * @param failed  the removed server
     * @param heir    a member of its mirror group before the removal (the lowest position), or -1 if it had none
     * @param moves   servers that changed position, as {id, from, to}: at most two
     */
    public record Repair(int failed, int heir, List<int[]> moves) {
    }

    /** Removes {@code id} and fills its position so that positions stay 0..n-2. */
    public Repair remove(int id) {
        int hole = position(id);
        List<Integer> group = mirrorGroup(id);
        int heir = group.isEmpty() ? -1 : group.get(0);
        List<int[]> moves = new ArrayList<>();
        positionOf.remove(id);
        if (hole == 0 && byPosition.size() > 1) {
            moveTo(1, 0, moves); // the secondary root becomes the primary; its old place is the hole now
            hole = 1;
        }
        int last = byPosition.size() - 1;
        if (hole != last) {
            moveTo(last, hole, moves);
        }
        byPosition.remove(last);
        return new Repair(id, heir, moves);
    }

    private void moveTo(int from, int to, List<int[]> moves) {
        int moving = byPosition.get(from);
        byPosition.set(to, moving);
        positionOf.put(moving, to);
        moves.add(new int[] {moving, from, to});
    }

    // ---------------------------------------------------------------- structure by position

    /** Parent position, or -1 for the two roots. */
    int parent(int position) {
        if (position < 2) {
            return -1;
        }
        int heapParent = (position - 2) / branching; // heap index of the parent: position p ≥ 2 is heap index p-1
        return heapParent == 0 ? 0 : heapParent + 1;
    }

    /** Child positions that exist. */
    List<Integer> children(int position) {
        if (position == 1) {
            return List.of();
        }
        int heap = position == 0 ? 0 : position - 1;
        List<Integer> children = new ArrayList<>(branching);
        for (int i = 1; i <= branching; i++) {
            int child = heap * branching + i + 1;
            if (child < size()) {
                children.add(child);
            }
        }
        return children;
    }

    /** The servers below {@code id}: its children, and for the primary root the secondary root too. */
    public List<Integer> seedTargets(int id) {
        int position = position(id);
        List<Integer> below = new ArrayList<>(children(position));
        if (position == 0 && size() > 1) {
            below.addFirst(1);
        }
        return toIds(below);
    }

    List<Integer> siblingPositions(int position) {
        if (position < 2) {
            return size() >= 2 ? List.of(1 - position) : List.of();
        }
        List<Integer> siblings = new ArrayList<>(children(parent(position)));
        siblings.remove(Integer.valueOf(position));
        return siblings;
    }

    /** Depth of a position: 0 for both roots. */
    int depth(int position) {
        int d = 0;
        for (int p = position; parent(p) >= 0; p = parent(p)) {
            d++;
        }
        return d;
    }

    // ---------------------------------------------------------------- structure by id

    /** Who mirrors {@code id}'s task state: its siblings; a lone child's parent; nobody when alone. By position. */
    public List<Integer> mirrorGroup(int id) {
        int position = position(id);
        List<Integer> positions = siblingPositions(position);
        if (positions.isEmpty() && parent(position) >= 0) {
            positions = List.of(parent(position));
        }
        return toIds(positions);
    }

    /** The servers {@code id} exchanges load with: parent, parent's siblings, siblings, children, siblings' children. */
    public List<Integer> neighbours(int id) {
        int position = position(id);
        Set<Integer> positions = new LinkedHashSet<>();
        int parent = parent(position);
        if (parent >= 0) {
            positions.add(parent);
            positions.addAll(siblingPositions(parent));
        }
        for (int sibling : siblingPositions(position)) {
            positions.add(sibling);
            positions.addAll(children(sibling));
        }
        positions.addAll(children(position));
        positions.remove(position);
        return toIds(new ArrayList<>(positions));
    }

    /** Most neighbours any server can have: parent, B-1 parent's siblings, B-1 siblings, B children, B(B-1) nephews. */
    public int neighbourBound() {
        return branching * branching + 2 * branching - 1;
    }

    /** Longest shortest path between two servers, in hops (breadth-first search from each). */
    public int diameter() {
        int diameter = 0;
        for (int source : byPosition) {
            Map<Integer, Integer> distance = new HashMap<>();
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            distance.put(source, 0);
            queue.add(source);
            while (!queue.isEmpty()) {
                int at = queue.poll();
                for (int next : neighbours(at)) {
                    if (distance.putIfAbsent(next, distance.get(at) + 1) == null) {
                        queue.add(next);
                    }
                }
            }
            if (distance.size() != size()) {
                return Integer.MAX_VALUE; // disconnected
            }
            diameter = Math.max(diameter, Collections.max(distance.values()));
        }
        return diameter;
    }

    /** Height of the tree (depth of the deepest position). */
    public int height() {
        return size() == 0 ? 0 : depth(size() - 1);
    }

    private List<Integer> toIds(List<Integer> positions) {
        List<Integer> ids = new ArrayList<>(positions.size());
        for (int p : positions) {
            ids.add(byPosition.get(p));
        }
        return ids;
    }

    @Override
    public String toString() {
        return "FatTree(B=" + branching + ", " + byPosition + ")";
    }
}
