package io.paycallback.statement.bill;

import io.paycallback.trade.InvalidMoney;
import io.paycallback.trade.Money;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of one bill line, found by position and copied only when asked for: a bill of a million lines has some
 * thirty million fields, of which a reader needs a handful per line. One instance is reused line after line.
 */
final class Fields {

    private String text = "";
    private long line;
    private int[] from = new int[32];
    private int[] to = new int[32];
    /** A field's value when it differs from its span in the text (an RFC 4180 quoted field). */
    private String[] cooked = new String[32];
    private int count;

    int count() {
        return count;
    }

    long line() {
        return line;
    }

    /**
     * WeChat's detail and summary lines: every field starts with a backtick and fields are joined by {@code ,`}.
     * Splitting on the pair rather than on a bare comma keeps a comma inside 商品名称 or 商户数据包 in its field.
     */
    Fields splitBackticked(String text, long line) throws BillException.Malformed {
        reset(text, line);
        if (text.isEmpty() || text.charAt(0) != '`') {
            throw new BillException.Malformed("line " + line + ": a field does not start with a backtick");
        }
        int start = 1;
        while (true) {
            int comma = text.indexOf(",`", start);
            if (comma < 0) {
                add(start, text.length());
                return this;
            }
            add(start, comma);
            start = comma + 2;
        }
    }

    /**
     * A comma-separated line as Alipay writes it: unquoted fields, RFC 4180 quotes honoured should one appear, and
     * the TAB that Alipay appends to id-like fields (so that spreadsheets keep them as text) removed.
     */
    Fields splitCsv(String text, long line) throws BillException.Malformed {
        reset(text, line);
        int i = 0;
        int n = text.length();
        while (true) {
            if (i < n && text.charAt(i) == '"') {
                StringBuilder value = new StringBuilder();
                int j = i + 1;
                while (true) {
                    if (j >= n) {
                        throw new BillException.Malformed("line " + line + ": a quoted field is not closed");
                    }
                    char c = text.charAt(j);
                    if (c == '"') {
                        if (j + 1 < n && text.charAt(j + 1) == '"') {
                            value.append('"');
                            j += 2;
                            continue;
                        }
                        j++;
                        break;
                    }
                    value.append(c);
                    j++;
                }
                if (j < n && text.charAt(j) != ',') {
                    throw new BillException.Malformed("line " + line + ": text after a quoted field");
                }
                add(i, j);
                cooked[count - 1] = stripTabs(value.toString());
                if (j >= n) {
                    return this;
                }
                i = j + 1;
            } else {
                int comma = text.indexOf(',', i);
                int end = comma < 0 ? n : comma;
                int stop = end;
                while (stop > i && text.charAt(stop - 1) == '\t') {
                    stop--;
                }
                add(i, stop);
                if (comma < 0) {
                    return this;
                }
                i = comma + 1;
            }
        }
    }

    /** A plain header line: names separated by commas, nothing quoted. */
    static List<String> header(String text) {
        return Arrays.stream(text.split(",", -1)).map(String::strip).toList();
    }

    String get(int index) {
        String value = cooked[index];
        return value != null ? value : text.substring(from[index], to[index]);
    }

    /** The field, or null when it is empty. */
    String optional(int index) {
        String value = get(index);
        return value.isEmpty() ? null : value;
    }

    /** An amount in yuan as the file writes it (any scale, possibly negative). */
    BigDecimal decimal(int index, String column) throws BillException.Malformed {
        String value = get(index);
        try {
            return new BigDecimal(value);
        } catch (NumberFormatException e) {
            throw new BillException.Malformed("line " + line + ": " + column + " is not an amount: '" + value + "'");
        }
    }

    /** A whole number, such as a count in a summary. */
    long whole(int index, String column) throws BillException.Malformed {
        String value = get(index);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new BillException.Malformed("line " + line + ": " + column + " is not a whole number: '" + value + "'");
        }
    }

    /** An amount turned into the ledger's scale; more than two decimals is not an amount a bill line can carry. */
    static BigDecimal ledger(BigDecimal amount, long line, String column) throws BillException.Malformed {
        try {
            return amount.setScale(2, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new BillException.Malformed("line " + line + ": " + column + " has more than two decimals: " + amount);
        }
    }

    static String currency(String code, long line) throws BillException.Malformed {
        try {
            return Money.currencyCode(code);
        } catch (InvalidMoney e) {
            throw new BillException.Malformed("line " + line + ": currency '" + code + "': " + e.getMessage());
        }
    }

    /** {@link #currency} remembering the last code: a bill has one or two currencies over a million lines. */
    static final class Currencies {
        private String lastRaw;
        private String lastCode;

        String code(String raw, long line) throws BillException.Malformed {
            if (!raw.equals(lastRaw)) {
                lastCode = currency(raw, line);
                lastRaw = raw;
            }
            return lastCode;
        }
    }

    /** Column positions by name; a header that names a column twice is ambiguous and refused. */
    static Map<String, Integer> positions(List<String> header, String what) throws BillException.Malformed {
        Map<String, Integer> positions = new HashMap<>();
        for (int i = 0; i < header.size(); i++) {
            if (positions.put(header.get(i), i) != null) {
                throw new BillException.Malformed(what + " names column " + header.get(i) + " twice");
            }
        }
        return positions;
    }

    static int required(Map<String, Integer> positions, String column, String what) throws BillException.Malformed {
        Integer index = positions.get(column);
        if (index == null) {
            throw new BillException.Malformed(what + " has no column " + column);
        }
        return index;
    }

    /** The first of the names that the header has, or -1. */
    static int firstOf(Map<String, Integer> positions, String... columns) {
        for (String column : columns) {
            Integer index = positions.get(column);
            if (index != null) {
                return index;
            }
        }
        return -1;
    }

    /** A reader's own failure with the stream's exception behind it. */
    static <E extends BillException> E causedBy(E failure, Throwable cause) {
        failure.initCause(cause);
        return failure;
    }

    static String stripBom(String text) {
        return !text.isEmpty() && text.charAt(0) == '\uFEFF' ? text.substring(1) : text;
    }

    private static String stripTabs(String value) {
        int end = value.length();
        while (end > 0 && value.charAt(end - 1) == '\t') {
            end--;
        }
        return value.substring(0, end);
    }

    private void reset(String text, long line) {
        this.text = text;
        this.line = line;
        Arrays.fill(cooked, 0, count, null);
        count = 0;
    }

    private void add(int start, int end) {
        if (count == from.length) {
            from = Arrays.copyOf(from, count * 2);
            to = Arrays.copyOf(to, count * 2);
            cooked = Arrays.copyOf(cooked, count * 2);
        }
        from[count] = start;
        to[count] = end;
        count++;
    }
}
