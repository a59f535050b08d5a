package io.paycallback.testsupport;

import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;

import java.util.ArrayList;
import java.util.List;

/** Blocking SQL for test assertions (tests run on JUnit's thread, never on the event loop). */
public final class Db {

    private final Pool pool;

    public Db(Pool pool) {
        this.pool = pool;
    }

    public long count(String sql, Object... params) {
        return first(sql, params).getLong(0);
    }

    public Row first(String sql, Object... params) {
        List<Row> rows = rows(sql, params);
        if (rows.isEmpty()) {
            throw new AssertionError("no row for " + sql);
        }
        return rows.get(0);
    }

    public List<Row> rows(String sql, Object... params) {
        List<Row> rows = new ArrayList<>();
        pool.preparedQuery(sql).execute(Tuple.from(params)).await().indefinitely().forEach(rows::add);
        return rows;
    }

    public int update(String sql, Object... params) {
        return pool.preparedQuery(sql).execute(Tuple.from(params)).await().indefinitely().rowCount();
    }
}
