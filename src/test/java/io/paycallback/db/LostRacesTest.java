package io.paycallback.db;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.mysqlclient.MySQLException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The error mapping a multi-primary cluster depends on, and the reservation's retry of a lost race. */
class LostRacesTest {

    private static MySQLException error(int code) {
        return new MySQLException("error " + code, code, "40001");
    }

    @Test
    void galerasCertificationFailureAndGroupReplicationsAreLostRaces() {
        assertThat(MySqlErrors.isLostRace(error(1213))).isTrue();
        assertThat(MySqlErrors.isLostRace(error(3101))).isTrue();
        assertThat(MySqlErrors.isLockContest(error(1213))).isTrue();
        assertThat(MySqlErrors.isLockContest(error(3101))).isTrue();
    }

    @Test
    void aLockWaitTimeoutIsAContestButNotALostRace() {
        assertThat(MySqlErrors.isLockContest(error(1205))).isTrue();
        assertThat(MySqlErrors.isLostRace(error(1205))).isFalse();
    }

    @Test
    void aDuplicateKeyIsAnAnswerNotARace() {
        assertThat(MySqlErrors.isDuplicateKey(error(1062))).isTrue();
        assertThat(MySqlErrors.isLostRace(error(1062))).isFalse();
        assertThat(MySqlErrors.isLockContest(error(1062))).isFalse();
    }

    @Test
    void otherErrorsAndOtherExceptionsAreNone() {
        // 1047: a Galera node that is not part of the primary component; 2013: the connection went away.
        for (Throwable other : List.of(error(1047), error(2013), error(1146), new IllegalStateException("1213"))) {
            assertThat(MySqlErrors.isLostRace(other)).as(other.getMessage()).isFalse();
            assertThat(MySqlErrors.isLockContest(other)).as(other.getMessage()).isFalse();
            assertThat(MySqlErrors.isDuplicateKey(other)).as(other.getMessage()).isFalse();
        }
    }

    @Test
    void aReservationThatLosesACertificationIsRunAgainAndAnsweredByItsSecondRun() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LostRaces races = new LostRaces(registry);
        AtomicInteger runs = new AtomicInteger();
        Uni<String> insert = Uni.createFrom().item(() -> {
            if (runs.incrementAndGet() == 1) {
                throw error(1213);
            }
            throw error(1062);
        });

        assertThatThrownBy(() -> races.retried(insert, LostRaces.At.RESERVATION).await().indefinitely())
                .satisfies(failure -> assertThat(MySqlErrors.isDuplicateKey(failure)).isTrue());
        assertThat(runs).hasValue(2);
        assertThat(registry.get(LostRaces.LOST_RACES).tag("at", "reservation").counter().count()).isEqualTo(1);
        assertThat(registry.get(LostRaces.LOST_RACES).tag("at", "transaction").counter().count()).isZero();
    }

    @Test
    void groupReplicationsRollbackDuringCommitIsRunAgainToo() {
        LostRaces races = new LostRaces(new SimpleMeterRegistry());
        AtomicInteger runs = new AtomicInteger();
        Uni<Integer> insert = Uni.createFrom().item(() -> {
            if (runs.incrementAndGet() == 1) {
                throw error(3101);
            }
            return runs.get();
        });

        assertThat(races.retried(insert, LostRaces.At.RESERVATION).await().indefinitely()).isEqualTo(2);
    }

    @Test
    void racesLostEveryTimeEndAsTheFailureAfterABoundedNumberOfRuns() {
        LostRaces races = new LostRaces(new SimpleMeterRegistry());
        AtomicInteger runs = new AtomicInteger();
        Uni<String> insert = Uni.createFrom().item(() -> {
            runs.incrementAndGet();
            throw error(1213);
        });

        assertThatThrownBy(() -> races.retried(insert, LostRaces.At.RESERVATION).await().indefinitely())
                .satisfies(failure -> assertThat(MySqlErrors.isLostRace(failure)).isTrue());
        assertThat(runs).hasValue(1 + LostRaces.RETRIES);
    }

    @Test
    void otherFailuresAreNotRunAgain() {
        LostRaces races = new LostRaces(new SimpleMeterRegistry());
        AtomicInteger runs = new AtomicInteger();
        Uni<String> insert = Uni.createFrom().item(() -> {
            runs.incrementAndGet();
            throw error(1205);
        });

        assertThatThrownBy(() -> races.retried(insert, LostRaces.At.RESERVATION).await().indefinitely());
        assertThat(runs).hasValue(1);
    }
}
