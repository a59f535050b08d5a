package io.paycallback.lease;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The batch finish is filled by hand; it must stay the statement its template says, at every batch size. */
class FinishAllSqlTest {

    @Test
    void aFinishOfOneLeaseIsTheTemplateFilled() {
        assertThat(LeaseStatements.finishAllSql("pay_callback_log", "", 1))
                .isEqualTo(LeaseStatements.FINISH_ALL.formatted("pay_callback_log", "", "?", "(?, ?)"));
    }

    @Test
    void aFinishOfManyLeasesWithColumnsIsTheTemplateFilled() {
        String sets = ", delivered_http_status = CASE id WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? END";
        assertThat(LeaseStatements.finishAllSql("outbox", sets, 3))
                .isEqualTo(LeaseStatements.FINISH_ALL.formatted("outbox", sets, "?, ?, ?", "(?, ?), (?, ?), (?, ?)"))
                .endsWith("WHERE id IN (?, ?, ?) AND (id, lease_token) IN ((?, ?), (?, ?), (?, ?))");
    }
}
