package io.paycallback.callback;

import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Channel;
import io.paycallback.channel.Notice;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.inbox.BodyDigest;
import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.Quarantine;
import io.paycallback.inbox.Reservation;
import io.paycallback.lease.Pickup;
import io.paycallback.lease.Worker;
import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.SpanName;
import io.paycallback.tracing.Traced;
import io.paycallback.tracing.Tracing;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The ingest rules, in order: gate, verify on the raw body, reserve with one INSERT, answer. Success is only ever
 * answered for a callback that is stored (or one we deliberately ignore); everything after the reservation happens
 * off this path.
 */
@ApplicationScoped
public class CallbackService {

    private static final Logger LOG = Logger.getLogger(CallbackService.class);

    private final CallbackGate gate;
    private final CallbackInbox inbox;
    private final Quarantine quarantine;
    private final Worker worker;
    private final Tracing tracing;
    private final long maxBodyBytes;
    private final Duration storeTimeout;

    public CallbackService(CallbackGate gate, CallbackInbox inbox, Quarantine quarantine, Worker worker,
                           Tracing tracing, CallbackConfig config) {
        this.gate = gate;
        this.tracing = tracing;
        this.inbox = inbox;
        this.quarantine = quarantine;
        this.worker = worker;
        this.maxBodyBytes = config.maxBodySize().asLongValue();
        this.storeTimeout = config.storeTimeout();
    }

    /**
     * One span per callback, with what it came to: a trace of its own, linked to a traceparent the request carried. The
     * reservation stores the span's traceparent, and the span is made current only for the log lines of that work, so
     * that they carry its trace id: current throughout, it cost every callback a context switch with the MDC's updates,
     * and every later stage of the chain its restoring, sampled or not.
     */
    public Uni<CallbackDisposition> handle(Channel channel, CallbackRequest request) {
        Traced span = tracing.startLinkedToCaller(SpanName.CALLBACK, request.headers())
                .set(SpanAttribute.PROVIDER, channel.id().path())
                .set(SpanAttribute.MERCHANT, request.merchantId())
                .set(SpanAttribute.KIND, request.kind().name());
        return decide(channel, request, span)
                .onItem().invoke(result -> span.set(SpanAttribute.OUTCOME, result.tag()))
                .onFailure().invoke(failure -> span.failed(failure.getClass().getSimpleName()))
                .onTermination().invoke(span::end);
    }

    private Uni<CallbackDisposition> decide(Channel channel, CallbackRequest request, Traced span) {
        if (!channel.serves(request.merchantId())) {
            return Uni.createFrom().item(CallbackDisposition.UNKNOWN_MERCHANT);
        }
        if (request.body().length > maxBodyBytes) {
            return Uni.createFrom().item(CallbackDisposition.TOO_LARGE);
        }
        if (!gate.tryEnter()) {
            return Uni.createFrom().item(CallbackDisposition.REJECTED_BUSY);
        }
        return Uni.createFrom().deferred(() -> {
                    return verifyAndStore(channel, request, span);
                })
                .onTermination().invoke(gate::leave);
    }

    private Uni<CallbackDisposition> verifyAndStore(Channel channel, CallbackRequest request, Traced span) {
        ChannelVerdict verdict = channel.read(request);
        if (verdict instanceof ChannelVerdict.BadSignature) {
            CompletableFuture<Boolean> learning = channel.learnKeys(request).toCompletableFuture();
            if (!learning.isDone() || learning.getNow(false)) {
                return readAgainOnceLearned(channel, request, span, verdict, learning);
            }
        }
        return store(channel, request, span, verdict);
    }

    /**
     * Waits, without blocking the event loop and at most as long as a store may take, for the channel to learn the keys
     * the request was refused for lacking, and reads it again on the request's own context if it did.
     */
    private Uni<CallbackDisposition> readAgainOnceLearned(Channel channel, CallbackRequest request, Traced span,
                                                           ChannelVerdict refused, CompletableFuture<Boolean> learning) {
        Context context = Vertx.currentContext();
        Executor back = context == null ? Runnable::run : command -> context.runOnContext(nothing -> command.run());
        return Uni.createFrom().completionStage(learning)
                .ifNoItem().after(storeTimeout).recoverWithItem(false)
                .onFailure().recoverWithItem(false)
                .emitOn(back)
                .flatMap(learned -> store(channel, request, span, Boolean.TRUE.equals(learned) ? channel.read(request) : refused));
    }

    private Uni<CallbackDisposition> store(Channel channel, CallbackRequest request, Traced span, ChannelVerdict verdict) {
        if (verdict instanceof ChannelVerdict.BadSignature bad) {
            try (Traced.Current ignored = span.makeCurrent()) {
                LOG.warnf("Refused %s %s callback for merchant %s: %s (body %d bytes, sha256 %s)", channel.id().path(),
                        request.kind(), request.merchantId(), bad.reason(), request.body().length,
                        BodyDigest.of(request.body()).prefix());
            }
            return Uni.createFrom().item(CallbackDisposition.BAD_SIGNATURE);
        }
        if (verdict instanceof ChannelVerdict.Malformed malformed) {
            try (Traced.Current ignored = span.makeCurrent()) {
                return holdInQuarantine(channel, request, malformed.reason());
            }
        }
        Notice notice = ((ChannelVerdict.Accepted) verdict).notice();
        if (notice.ignoredBecause().isPresent()) {
            return Uni.createFrom().item(CallbackDisposition.IGNORED);
        }
        Pickup pickup = worker.hasRoom() ? Pickup.CALLER : Pickup.SCANNER;
        return inbox.store(notice, request.body(), pickup, span.traceparent())
                .ifNoItem().after(storeTimeout).fail()
                .map(this::accepted)
                .onFailure().recoverWithItem(failure -> {
                    try (Traced.Current ignored = span.makeCurrent()) {
                        return storeFailed(channel, request, failure);
                    }
                });
    }

    /**
     * New when any of its rows was reserved now (a combine notice stores several); a failure part way has stored some,
     * which the provider's next push then finds reserved, so it is answered like any store failure.
     */
    private CallbackDisposition accepted(List<Reservation> reservations) {
        CallbackDisposition result = CallbackDisposition.DUPLICATE;
        for (Reservation reservation : reservations) {
            if (reservation instanceof Reservation.Reserved reserved) {
                reserved.lease().ifPresent(worker::process);
                result = CallbackDisposition.NEW;
            }
        }
        return result;
    }

    private Uni<CallbackDisposition> holdInQuarantine(Channel channel, CallbackRequest request, String reason) {
        BodyDigest digest = BodyDigest.of(request.body());
        LOG.warnf("Quarantined %s %s callback for merchant %s: %s (body %d bytes, sha256 %s)", channel.id().path(),
                request.kind(), request.merchantId(), reason, request.body().length, digest.prefix());
        return quarantine.hold(request.merchantId(), channel.id(), request.kind(), reason, digest, request.body())
                .ifNoItem().after(storeTimeout).fail()
                .onFailure().invoke(failure -> LOG.errorf("Could not quarantine callback sha256 %s: %s",
                        digest.prefix(), failure.toString()))
                .onItemOrFailure().transform((ignored, failure) -> CallbackDisposition.MALFORMED);
    }

    private CallbackDisposition storeFailed(Channel channel, CallbackRequest request, Throwable failure) {
        LOG.errorf("Could not reserve %s %s callback for merchant %s (body %d bytes, sha256 %s): %s",
                channel.id().path(), request.kind(), request.merchantId(), request.body().length,
                BodyDigest.of(request.body()).prefix(), failure.toString());
        return CallbackDisposition.STORE_FAILED;
    }
}
