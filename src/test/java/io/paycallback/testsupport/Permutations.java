package io.paycallback.testsupport;

import java.util.ArrayList;
import java.util.List;

/** Every arrival order of a few notices, for tests whose claim is "whatever the order". */
public final class Permutations {

    private Permutations() {
    }

    public static <T> List<List<T>> of(List<T> items) {
        if (items.isEmpty()) {
            return List.of(List.of());
        }
        List<List<T>> result = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            List<T> rest = new ArrayList<>(items);
            T first = rest.remove(i);
            for (List<T> tail : of(rest)) {
                List<T> permutation = new ArrayList<>(items.size());
                permutation.add(first);
                permutation.addAll(tail);
                result.add(permutation);
            }
        }
        return result;
    }
}
