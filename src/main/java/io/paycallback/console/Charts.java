package io.paycallback.console;

import io.paycallback.trend.Trends;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * A chart as inline SVG, drawn on the server: no script, no front-end build. Lines are told apart by their dash
 * pattern and by the order of the legend as well as by colour, so a reader who cannot see the colours reads them too.
 */
final class Charts {

    static final int WIDTH = 560;
    static final int HEIGHT = 170;
    private static final int LEFT = 48;
    private static final int RIGHT = 8;
    private static final int TOP = 8;
    private static final int BOTTOM = 22;
    private static final String[] COLOURS = {"#1f5fbf", "#c0392b", "#1e8449", "#8e44ad", "#b9770e", "#117a8b", "#555555"};
    private static final String[] DASHES = {"", "6 3", "2 3", "9 3 2 3", "1 4", "12 4", "4 2 1 2"};
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

    private Charts() {
    }

    /** The chart's SVG, or a sentence when it has nothing to draw. Every text in it is escaped. */
    static String svg(Trends.Chart chart, Instant from, Instant to) {
        List<Trends.Line> lines = chart.lines();
        if (lines.isEmpty()) {
            return "<p class=\"hint\">Nothing counted in this window.</p>";
        }
        int points = lines.get(0).values().size();
        long max = 1;
        for (Trends.Line line : lines) {
            for (long value : line.values()) {
                max = Math.max(max, value);
            }
        }
        long top = nice(max);
        int plotWidth = WIDTH - LEFT - RIGHT;
        int plotHeight = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 ").append(WIDTH).append(' ')
                .append(HEIGHT).append("\" role=\"img\" aria-label=\"").append(escape(chart.title())).append("\">");
        for (int i = 0; i <= 2; i++) {
            int y = TOP + plotHeight - plotHeight * i / 2;
            svg.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(WIDTH - RIGHT).append("\" y1=\"").append(y)
                    .append("\" y2=\"").append(y).append("\" stroke=\"#d8dde3\"/>")
                    .append("<text x=\"").append(LEFT - 4).append("\" y=\"").append(y + 4)
                    .append("\" text-anchor=\"end\" font-size=\"10\">").append(top * i / 2).append("</text>");
        }
        svg.append("<text x=\"").append(LEFT).append("\" y=\"").append(HEIGHT - 6).append("\" font-size=\"10\">")
                .append(CLOCK.format(from)).append(" UTC</text>")
                .append("<text x=\"").append(WIDTH - RIGHT).append("\" y=\"").append(HEIGHT - 6)
                .append("\" text-anchor=\"end\" font-size=\"10\">").append(CLOCK.format(to)).append(" UTC</text>");
        for (int l = 0; l < lines.size(); l++) {
            Trends.Line line = lines.get(l);
            svg.append("<polyline fill=\"none\" stroke-width=\"1.6\" stroke=\"").append(COLOURS[l % COLOURS.length])
                    .append('"');
            String dash = DASHES[l % DASHES.length];
            if (!dash.isEmpty()) {
                svg.append(" stroke-dasharray=\"").append(dash).append('"');
            }
            svg.append(" points=\"");
            for (int p = 0; p < points; p++) {
                long x = LEFT + (points == 1 ? plotWidth / 2 : (long) plotWidth * p / (points - 1));
                long y = TOP + plotHeight - plotHeight * line.values().get(p) / top;
                svg.append(x).append(',').append(y).append(' ');
            }
            svg.append("\"><title>").append(escape(line.label())).append("</title></polyline>");
        }
        return svg.append("</svg>").toString();
    }

    /** The legend: each line's sample stroke and label, in the order the lines are drawn. */
    static String legend(Trends.Chart chart) {
        StringBuilder legend = new StringBuilder("<ul class=\"legend\">");
        for (int l = 0; l < chart.lines().size(); l++) {
            String dash = DASHES[l % DASHES.length];
            legend.append("<li><svg width=\"28\" height=\"8\" aria-hidden=\"true\"><line x1=\"0\" y1=\"4\" x2=\"28\" y2=\"4\""
                            + " stroke-width=\"2\" stroke=\"").append(COLOURS[l % COLOURS.length]).append('"')
                    .append(dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"").append("/></svg> ")
                    .append(escape(chart.lines().get(l).label())).append("</li>");
        }
        return legend.append("</ul>").toString();
    }

    /** The smallest of 1, 2 or 5 times a power of ten that is at least {@code max}. */
    static long nice(long max) {
        long power = 1;
        while (power * 10 <= max) {
            power *= 10;
        }
        for (long step : new long[]{1, 2, 5, 10}) {
            if (step * power >= max) {
                return step * power;
            }
        }
        return 10 * power;
    }

    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }
}
