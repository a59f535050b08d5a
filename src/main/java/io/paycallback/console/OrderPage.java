package io.paycallback.console;

import io.paycallback.auth.MerchantScope;
import io.paycallback.auth.Roles;
import io.paycallback.auth.WithinMerchantScope;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.OrderActions;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import java.util.Optional;

/**
 * Finding an order by any of its numbers, its whole story, and closing it. An operator scoped to merchants searches
 * within them only: another merchant's order is not found.
 */
@Path(ConsoleSessions.PATH)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class OrderPage {

    private final OrderActions orders;
    private final ConsolePage page;
    private final SecurityIdentity identity;

    public OrderPage(OrderActions orders, ConsolePage page, SecurityIdentity identity) {
        this.orders = orders;
        this.page = page;
        this.identity = identity;
    }

    @GET
    @Path("search")
    @Offers(OperatorAction.ORDER_TIMELINE)
    @WithinMerchantScope.Honoured
    public Uni<TemplateInstance> search(@QueryParam("by") @DefaultValue("order") String by,
                                        @QueryParam("merchant") String merchant, @QueryParam("q") String q) {
        String number = q == null ? "" : q.strip();
        String merchantId = merchant == null ? "" : merchant.strip();
        MerchantScope scope = MerchantScope.of(identity);
        if (!scope.merchants().isEmpty()) {
            Optional<String> reached = scope.resolve(merchantId, PayCallbackConfig.DEFAULT_MERCHANT);
            if (reached.isEmpty()) {
                return Uni.createFrom().item(Templates.search(page.page("search"), by, merchantId, number, List.of(), null));
            }
            merchantId = reached.get();
        }
        String searched = merchantId;
        if (number.isEmpty()) {
            return Uni.createFrom().item(Templates.search(page.page("search"), by, merchantId, number, List.of(), null));
        }
        return orders.find(by, searched, number).map(result -> ConsolePage.page(result, found ->
                Templates.search(page.page("search"), by, searched, number, found.matches(),
                        found.timeline() == null ? null : ConsoleViews.Timeline.of(found.timeline()))));
    }

    /** Blocking: the first try at the providers is made while the operator waits. */
    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("orders/{outTradeNo}/close")
    @Blocking
    @Offers(OperatorAction.ORDER_CLOSE)
    public TemplateInstance close(@PathParam("outTradeNo") String outTradeNo,
                                  @QueryParam("merchant") String merchant) {
        return ConsolePage.done(orders.close(merchant, outTradeNo, page.operator()));
    }
}
