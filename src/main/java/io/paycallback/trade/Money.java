package io.paycallback.trade;

import java.math.BigDecimal;
import java.util.Currency;
import java.util.Locale;
import java.util.Objects;

/**
 * An amount with its currency, as one value where they travel together; and the conversions of provider amounts in
 * minor units to and from the DECIMAL(18,2) amounts the ledger stores.
 *
 * @param currency upper-case ISO 4217 code, as the ledger stores it
 */
public record Money(BigDecimal amount, String currency) {

    private static final int LEDGER_SCALE = 2;

    public Money {
        Objects.requireNonNull(amount, "amount");
        Objects.requireNonNull(currency, "currency");
    }

    /** For a column or field that may hold no amount: null stays null. */
    public static BigDecimal amountOrNull(Money money) {
        return money == null ? null : money.amount();
    }

    /**
     * @param currency ISO 4217 code in any case
     * @throws InvalidMoney for an unknown currency, or one with more fraction digits than the ledger holds
     */
    public static BigDecimal fromMinorUnits(long minorUnits, String currency) throws InvalidMoney {
        Currency known = currency(currency);
        int digits = known.getDefaultFractionDigits();
        if (!fitsLedger(known)) {
            throw new InvalidMoney("currency has " + digits + " fraction digits, the ledger holds " + LEDGER_SCALE);
        }
        return BigDecimal.valueOf(minorUnits, digits);
    }

    /** Whether the ledger's DECIMAL(18,2) columns hold this currency's amounts exactly. */
    public static boolean fitsLedger(Currency currency) {
        int digits = currency.getDefaultFractionDigits();
        return digits >= 0 && digits <= LEDGER_SCALE;
    }

    /** The inverse of {@link #fromMinorUnits}, for amounts we send to a provider. */
    public static long toMinorUnits(BigDecimal amount, String currency) throws InvalidMoney {
        try {
            return amount.movePointRight(currency(currency).getDefaultFractionDigits()).longValueExact();
        } catch (ArithmeticException e) {
            throw new InvalidMoney("amount has more fraction digits than its currency");
        }
    }

    /** The upper-case ISO 4217 code. */
    public static String currencyCode(String currency) throws InvalidMoney {
        return currency(currency).getCurrencyCode();
    }

    private static Currency currency(String code) throws InvalidMoney {
        if (code == null) {
            throw new InvalidMoney("missing currency");
        }
        try {
            return Currency.getInstance(code.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidMoney("unknown currency");
        }
    }

    /** The same amount in the same currency, whatever the scale each is written with ({@code 88} and {@code 88.00}). */
    public boolean sameAs(Money other) {
        return amount.compareTo(other.amount) == 0 && currency.equals(other.currency);
    }

    /** The amount as written, then the currency ({@code 19.99 USD}): what a log line and an error show. */
    @Override
    public String toString() {
        return amount.toPlainString() + " " + currency;
    }
}
