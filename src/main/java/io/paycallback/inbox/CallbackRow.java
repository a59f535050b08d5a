package io.paycallback.inbox;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.paycallback.lease.RowStatus;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.math.BigDecimal;
import java.time.LocalDateTime;

/**
 * A stored callback as the admin API shows it: every column but the lease token, the raw body's length, and the body
 * itself only when one row is asked for with it. Amounts are decimal strings, as everywhere in the API.
 */
@Schema(name = "Callback", oneOf = {CallbackRow.Payment.class, CallbackRow.Refund.class})
public sealed interface CallbackRow permits CallbackRow.Payment, CallbackRow.Refund {

    long id();

    String merchantId();

    String channel();

    RowStatus status();

    /** Null unless the row was read with its body; empty when housekeeping blanked it. */
    String rawBody();

    /** The same row carrying its raw body (as UTF-8 text; provider bodies are UTF-8 or GBK form data). */
    CallbackRow withBody(String rawBody);

    @Schema(name = "PaymentCallback")
    record Payment(long id, String merchantId, String channel, String channelTradeNo, String outTradeNo,
                   String tradeState,
                   @JsonFormat(shape = JsonFormat.Shape.STRING) @Schema(type = SchemaType.STRING, example = "88.00") BigDecimal amount,
                   String currency, RowStatus status, int retryCount, LocalDateTime nextRetryAt, String lastError,
                   long bodyLength, LocalDateTime createdAt, LocalDateTime updatedAt,
                   @JsonInclude(JsonInclude.Include.NON_NULL) @Schema(description = "only with ?body=true") String rawBody)
            implements CallbackRow {

        @Override
        public Payment withBody(String body) {
            return new Payment(id, merchantId, channel, channelTradeNo, outTradeNo, tradeState, amount, currency, status,
                    retryCount, nextRetryAt, lastError, bodyLength, createdAt, updatedAt, body);
        }
    }

    @Schema(name = "RefundCallback")
    record Refund(long id, String merchantId, String channel, String refundNo, String channelRefundId,
                  String channelTradeNo, String outTradeNo, String refundState,
                  @JsonFormat(shape = JsonFormat.Shape.STRING) @Schema(type = SchemaType.STRING, example = "10.00") BigDecimal amount,
                  @JsonFormat(shape = JsonFormat.Shape.STRING) @Schema(type = SchemaType.STRING, nullable = true) BigDecimal refundedTotal,
                  String currency, RowStatus status, int retryCount, LocalDateTime nextRetryAt, String lastError,
                  long bodyLength, LocalDateTime createdAt, LocalDateTime updatedAt,
                  @JsonInclude(JsonInclude.Include.NON_NULL) @Schema(description = "only with ?body=true") String rawBody)
            implements CallbackRow {

        @Override
        public Refund withBody(String body) {
            return new Refund(id, merchantId, channel, refundNo, channelRefundId, channelTradeNo, outTradeNo, refundState,
                    amount, refundedTotal, currency, status, retryCount, nextRetryAt, lastError, bodyLength, createdAt,
                    updatedAt, body);
        }
    }
}
