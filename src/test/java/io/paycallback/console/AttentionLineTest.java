package io.paycallback.console;

import io.paycallback.ops.Attention;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class AttentionLineTest {

    @Test
    void everyConcernLinksToThePageWhereItIsFixed() {
        assertThat(line(Attention.Concern.DESTINATION_OPEN, "warehouse").link())
                .isEqualTo("/admin/console/destinations#destination-warehouse");
        assertThat(line(Attention.Concern.DEAD_LETTERS, "refund-submission").link())
                .isEqualTo("/admin/console/dead?table=refund-submission");
        assertThat(line(Attention.Concern.STATEMENT_DIFFERENCES, "").link()).isEqualTo("/admin/console/statements");
        assertThat(line(Attention.Concern.QUARANTINE, "").link()).isEqualTo("/admin/console/quarantine");
        assertThat(Arrays.stream(Attention.Concern.values()).map(concern -> line(concern, "x").link()))
                .allSatisfy(link -> assertThat(link).startsWith(ConsoleSessions.PATH));
    }

    private static ConsoleViews.AttentionLine line(Attention.Concern concern, String subject) {
        return ConsoleViews.AttentionLine.of(new Attention(concern, subject, 1, null, "said"));
    }
}
