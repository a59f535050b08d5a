package io.paycallback.order;

public enum OrderStatus {
    PENDING,
    PAID,
    CLOSED,
    REFUNDED
}
