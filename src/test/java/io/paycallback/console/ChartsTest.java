package io.paycallback.console;

import io.paycallback.trend.Trends;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ChartsTest {

    private static final Instant FROM = Instant.parse("2026-12-07T14:00:00Z");
    private static final Instant TO = Instant.parse("2026-12-07T20:00:00Z");

    @Test
    void eachLineHasItsOwnDashAndTheAxisAHumanScale() {
        Trends.Chart chart = new Trends.Chart("Callbacks", "per minute", true, List.of(
                new Trends.Line("wxpay new", List.of(0L, 40L, 80L)),
                new Trends.Line("alipay new", List.of(10L, 20L, 30L))));

        String svg = Charts.svg(chart, FROM, TO);

        assertThat(svg).startsWith("<svg").endsWith("</svg>").contains("14:00 UTC").contains("20:00 UTC")
                .as("80 rounds up to 100, halved for the middle line").contains(">100<").contains(">50<");
        assertThat(svg.split("<polyline", -1)).hasSize(3);
        assertThat(svg).contains("stroke-dasharray=\"6 3\"").as("the first line is solid, the second dashed");
        assertThat(svg).contains("points=\"48,148 300,92 552,36 \"");
        assertThat(Charts.legend(chart)).contains("wxpay new").contains("alipay new").contains("stroke-dasharray=\"6 3\"");
    }

    @Test
    void whatALabelSaysIsTextNeverMarkup() {
        Trends.Chart chart = new Trends.Chart("<b>t</b>", "rows", false,
                List.of(new Trends.Line("<script>alert(1)</script>", List.of(1L))));

        assertThat(Charts.svg(chart, FROM, TO)).doesNotContain("<script>").doesNotContain("<b>")
                .contains("&lt;script&gt;alert(1)&lt;/script&gt;");
        assertThat(Charts.legend(chart)).doesNotContain("<script>");
    }

    @Test
    void anEmptyChartSaysSo() {
        assertThat(Charts.svg(new Trends.Chart("Dead letters", "rows", false, List.of()), FROM, TO))
                .isEqualTo("<p class=\"hint\">Nothing counted in this window.</p>");
        assertThat(Charts.nice(1)).isEqualTo(1);
        assertThat(Charts.nice(3)).isEqualTo(5);
        assertThat(Charts.nice(101)).isEqualTo(200);
        assertThat(Charts.nice(600)).isEqualTo(1000);
    }
}
