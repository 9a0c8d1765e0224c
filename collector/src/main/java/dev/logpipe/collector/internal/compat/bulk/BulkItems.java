package dev.logpipe.collector.internal.compat.bulk;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The actions of one {@code _bulk} request in order, for the answer's {@code items}: the action, the index (names
 * shared) and the client's {@code _id}. About 16 bytes per item plus the ids, counted in the request's reservation.
 */
final class BulkItems {
    private final List<String> indexNames = new ArrayList<>();
    private final Map<String, Integer> indexIds = new HashMap<>();
    private int[] packed = new int[64]; // action << 24 | index id
    private String[] ids = new String[64];
    private int size;
    private long idBytes;

    static final String[] ACTIONS = {"index", "create", "update", "delete"};

    void add(String action, String indexOrNull, String id) {
        String index = indexOrNull == null ? "" : indexOrNull;
        if (size == packed.length) {
            packed = Arrays.copyOf(packed, size * 2);
            ids = Arrays.copyOf(ids, size * 2);
        }
        int a = Arrays.asList(ACTIONS).indexOf(action);
        Integer i = indexIds.get(index);
        if (i == null) {
            i = indexNames.size();
            indexNames.add(index);
            indexIds.put(index, i);
            idBytes += 64 + 2L * index.length();
        }
        packed[size] = a << 24 | i;
        ids[size] = id;
        if (id != null) {
            idBytes += 48 + 2L * id.length();
        }
        size++;
    }

    int size() {
        return size;
    }

    /** Item {@code n}, counting from 1. */
    String action(int n) {
        return ACTIONS[packed[n - 1] >>> 24];
    }

    String index(int n) {
        return indexNames.get(packed[n - 1] & 0xffffff);
    }

    String id(int n) {
        return ids[n - 1];
    }

    long heldBytes() {
        return 12L * packed.length + idBytes;
    }
}
