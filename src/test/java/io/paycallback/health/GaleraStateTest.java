package io.paycallback.health;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class GaleraStateTest {

    @Test
    void aServerWithoutWsrepStatusIsNotGalera() {
        assertThat(GaleraState.of(Map.of())).isEmpty();
    }

    @Test
    void onlyASyncedReadyNodeIsSynced() {
        assertThat(GaleraState.of(Map.of("wsrep_ready", "ON", "wsrep_local_state", "4", "wsrep_local_state_comment", "Synced")))
                .hasValueSatisfying(state -> assertThat(state.synced()).isTrue());
    }

    @Test
    void aDonorAJoinerAJoinedOrANotReadyNodeIsNot() {
        for (String state : new String[]{"1", "2", "3"}) {
            assertThat(GaleraState.of(Map.of("wsrep_ready", "ON", "wsrep_local_state", state)))
                    .hasValueSatisfying(galera -> assertThat(galera.synced()).as(state).isFalse());
        }
        assertThat(GaleraState.of(Map.of("wsrep_ready", "OFF", "wsrep_local_state", "4")))
                .hasValueSatisfying(galera -> assertThat(galera.synced()).isFalse());
        assertThat(GaleraState.of(Map.of("wsrep_local_state", "4")))
                .hasValueSatisfying(galera -> assertThat(galera.synced()).as("wsrep_ready missing").isFalse());
        assertThat(GaleraState.of(Map.of("wsrep_ready", "ON", "wsrep_local_state", "x")))
                .hasValueSatisfying(galera -> assertThat(galera.synced()).isFalse());
    }
}
