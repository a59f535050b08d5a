package io.paycallback.order;

import java.math.BigDecimal;
import java.time.LocalDateTime;

public record Order(String merchantId, String outTradeNo, BigDecimal amount, String currency, OrderStatus status,
                    String channel, String channelTradeNo, LocalDateTime paidAt, BigDecimal refundedAmount) {
}
