package io.paycallback.testsupport;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/** Runs tasks on their own threads, released together, for races on one key. */
public final class Concurrently {

    private Concurrently() {
    }

    public static <T> List<T> times(int threads, Callable<T> task) throws Exception {
        return all(Collections.nCopies(threads, task));
    }

    public static <I, T> List<T> each(List<I> inputs, Function<I, T> task) throws Exception {
        List<Callable<T>> tasks = new ArrayList<>();
        for (I input : inputs) {
            tasks.add(() -> task.apply(input));
        }
        return all(tasks);
    }

    public static <T> List<T> all(List<Callable<T>> tasks) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(threads.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }
}
