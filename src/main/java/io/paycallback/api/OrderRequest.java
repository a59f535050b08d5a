package io.paycallback.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.trade.Money;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.math.BigDecimal;
import java.util.Currency;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A new order from the order service, checked field by field so a bad request says exactly what is wrong.
 */
public record OrderRequest(@Schema(defaultValue = PayCallbackConfig.DEFAULT_MERCHANT) String merchantId, String outTradeNo,
                           @Schema(type = SchemaType.STRING, example = "88.00") BigDecimal amount,
                           @Schema(example = "CNY") String currency,
                           @Schema(description = "the WeChat Pay combine payment (合单, its combine_out_trade_no) the order"
                                   + " is paid in; absent for an order paid on its own", nullable = true)
                           String combineOutTradeNo) {

    public OrderRequest(String merchantId, String outTradeNo, BigDecimal amount, String currency) {
        this(merchantId, outTradeNo, amount, currency, null);
    }

    /** The combine payment the order is paid in, if any. */
    public Optional<String> combine() {
        return Optional.ofNullable(combineOutTradeNo);
    }

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9_\\-|*@.]{1,64}");
    private static final Pattern MERCHANT = Pattern.compile("[A-Za-z0-9_\\-]{1,32}");
    private static final BigDecimal MAX_AMOUNT = new BigDecimal("9999999999999999.99");

    public static OrderRequest parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new IllegalArgumentException("body must be a JSON object");
        }
        String merchantId = text(body, "merchantId", PayCallbackConfig.DEFAULT_MERCHANT);
        if (!MERCHANT.matcher(merchantId).matches()) {
            throw new IllegalArgumentException("merchantId must be 1-32 letters, digits, '_' or '-'");
        }
        String outTradeNo = text(body, "outTradeNo", null);
        if (outTradeNo == null || !IDENTIFIER.matcher(outTradeNo).matches()) {
            throw new IllegalArgumentException("outTradeNo must be 1-64 characters of [A-Za-z0-9_-|*@.]");
        }
        String currencyCode = text(body, "currency", null);
        Currency currency = currency(currencyCode);
        JsonNode amountNode = body.get("amount");
        if (amountNode == null || !(amountNode.isTextual() || amountNode.isNumber())) {
            throw new IllegalArgumentException("amount is required, as a decimal string such as \"88.00\"");
        }
        BigDecimal amount;
        try {
            amount = amountNode.isTextual() ? new BigDecimal(amountNode.textValue()) : amountNode.decimalValue();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("amount is not a decimal number");
        }
        if (amount.signum() <= 0) {
            throw new IllegalArgumentException("amount must be positive");
        }
        if (amount.stripTrailingZeros().scale() > currency.getDefaultFractionDigits()) {
            throw new IllegalArgumentException("amount has more decimals than " + currency.getCurrencyCode() + " allows ("
                    + currency.getDefaultFractionDigits() + ")");
        }
        if (amount.compareTo(MAX_AMOUNT) > 0) {
            throw new IllegalArgumentException("amount is too large");
        }
        String combineOutTradeNo = text(body, "combineOutTradeNo", null);
        if (combineOutTradeNo != null && !IDENTIFIER.matcher(combineOutTradeNo).matches()) {
            throw new IllegalArgumentException("combineOutTradeNo must be 1-64 characters of [A-Za-z0-9_-|*@.]");
        }
        return new OrderRequest(merchantId, outTradeNo, amount, currency.getCurrencyCode(), combineOutTradeNo);
    }

    private static Currency currency(String code) {
        if (code == null) {
            throw new IllegalArgumentException("currency is required (ISO 4217, such as CNY)");
        }
        Currency currency;
        try {
            currency = Currency.getInstance(code);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown currency " + code);
        }
        if (!Money.fitsLedger(currency)) {
            throw new IllegalArgumentException("currency " + code + " is not supported (amounts hold at most 2 decimals)");
        }
        return currency;
    }

    private static String text(JsonNode body, String field, String fallback) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isTextual()) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return node.textValue();
    }
}
