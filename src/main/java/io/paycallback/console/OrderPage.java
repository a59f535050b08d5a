package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.OrderActions;
import io.quarkus.qute.TemplateInstance;
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

/** Finding an order by any of its numbers, its whole story, and closing it. */
@Path(ConsoleSessions.PATH)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed(Roles.OPERATOR)
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class OrderPage {

    private final OrderActions orders;
    private final ConsolePage page;

    public OrderPage(OrderActions orders, ConsolePage page) {
        this.orders = orders;
        this.page = page;
    }

    @GET
    @Path("search")
    @Offers(OperatorAction.ORDER_TIMELINE)
    public Uni<TemplateInstance> search(@QueryParam("by") @DefaultValue("order") String by,
                                        @QueryParam("merchant") String merchant, @QueryParam("q") String q) {
        String number = q == null ? "" : q.strip();
        String merchantId = merchant == null ? "" : merchant.strip();
        if (number.isEmpty()) {
            return Uni.createFrom().item(Templates.search(page.page("search"), by, merchantId, number, List.of(), null));
        }
        return orders.find(by, merchantId, number).map(result -> ConsolePage.page(result, found ->
                Templates.search(page.page("search"), by, merchantId, number, found.matches(),
                        found.timeline() == null ? null : ConsoleViews.Timeline.of(found.timeline()))));
    }

    /** Blocking: the first try at the providers is made while the operator waits. */
    @POST
    @Path("orders/{outTradeNo}/close")
    @Blocking
    @Offers(OperatorAction.ORDER_CLOSE)
    public TemplateInstance close(@PathParam("outTradeNo") String outTradeNo,
                                  @QueryParam("merchant") String merchant) {
        return ConsolePage.done(orders.close(merchant, outTradeNo, page.operator()));
    }
}
