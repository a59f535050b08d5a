package io.paycallback.statement;

import io.paycallback.provider.OrderRef;
import io.paycallback.channel.Notice;
import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.Origin;
import io.paycallback.inbox.Reservation;
import io.paycallback.lease.Pickup;
import io.paycallback.provider.PaymentAnswer;
import io.paycallback.provider.ProviderClient;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.ProviderException;
import io.paycallback.provider.RefundOrder;
import io.paycallback.statement.Discrepancies.Discrepancy;
import io.paycallback.tracing.Traceparent;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The safe repair of "missing here": the provider booked a payment or refund of an order we know, and we do not hold
 * it as PAID / SUCCEEDED. The bill alone is never trusted with money: the provider is asked with the existing query
 * clients, and only its verified answer is stored, through the same reservation as a callback (origin
 * {@code statement}, same unique key), so the transition makes exactly one effect whether the callback came before,
 * comes later, or never. Blocks; runs on the statement run's worker thread.
 */
@ApplicationScoped
public class Repairs {

    private final ProviderClients providers;
    private final CallbackInbox inbox;
    private final Discrepancies discrepancies;

    public Repairs(ProviderClients providers, CallbackInbox inbox, Discrepancies discrepancies) {
        this.providers = providers;
        this.inbox = inbox;
        this.discrepancies = discrepancies;
    }

    /** @return whether the discrepancy was repaired; otherwise it stays open, with what the provider said as its note */
    boolean repair(Discrepancy found, Duration timeout) {
        Optional<ProviderClient> client = providers.find(found.channel(), found.merchantId());
        if (client.isEmpty()) {
            discrepancies.note(found.id(), "no API keys to ask " + found.channel().path()).await().atMost(timeout);
            return false;
        }
        try {
            String outcome = found.item() == Discrepancies.Item.PAYMENT
                    ? payment(client.get(), found, timeout) : refund(client.get(), found, timeout);
            if (outcome == null) {
                return false;
            }
            return discrepancies.repaired(found.id(), outcome).await().atMost(timeout);
        } catch (ProviderException failed) {
            discrepancies.note(found.id(), "asking the provider failed: " + failed.getMessage()).await().atMost(timeout);
            return false;
        }
    }

    private String payment(ProviderClient client, Discrepancy found, Duration timeout) {
        PaymentAnswer answer = client.queryPayment(OrderRef.of(found.merchantId(), OutTradeNo.ofNullable(found.outTradeNo()))).await().atMost(timeout);
        if (answer instanceof PaymentAnswer.Paid paid && paid.payment().channelTradeNo().value().equals(found.tradeNo())) {
            Reservation stored = inbox.reserve(paid.payment(), paid.body(), Pickup.SCANNER, Origin.STATEMENT,
                            Traceparent.current())
                    .await().atMost(timeout);
            return stored(stored);
        }
        String said = answer instanceof PaymentAnswer.NotPaid notPaid ? notPaid.state()
                : "paid under another trade number";
        discrepancies.note(found.id(), "asked " + found.channel().path() + ": " + said).await().atMost(timeout);
        return null;
    }

    private String refund(ProviderClient client, Discrepancy found, Duration timeout) {
        RefundOrder order = new RefundOrder(found.merchantId(),
                new RefundNo(found.refundNo() != null ? found.refundNo() : found.ident()), OutTradeNo.ofNullable(found.outTradeNo()),
                ChannelTradeNo.ofNullable(found.tradeNo()), new Money(found.billAmount(), found.billCurrency()), null, "statement");
        Optional<Notice.Refund> settled = client.queryRefund(order, found.refundId()).await().atMost(timeout);
        if (settled.isEmpty()) {
            discrepancies.note(found.id(), "asked " + found.channel().path() + ": refund not final yet").await().atMost(timeout);
            return null;
        }
        Reservation stored = inbox.reserve(settled.get(), settled.get().toString().getBytes(StandardCharsets.UTF_8),
                Pickup.SCANNER, Origin.STATEMENT, Traceparent.current()).await().atMost(timeout);
        return stored(stored);
    }

    private static String stored(Reservation stored) {
        return stored instanceof Reservation.Reserved
                ? "the provider's verified answer was stored through the ledger"
                : "the provider's answer was stored already (a callback or query came first)";
    }
}
