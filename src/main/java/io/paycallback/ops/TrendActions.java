package io.paycallback.ops;

import io.paycallback.trend.Trends;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The charts of the last hours, for the overview. */
@ApplicationScoped
public class TrendActions {

    private final Trends trends;

    public TrendActions(Trends trends) {
        this.trends = trends;
    }

    /** @param hours 1, 6 or 24; null for the default */
    @OperatorAction.Performs(OperatorAction.TRENDS)
    public Uni<ActionResult<Trends.Picture>> read(Integer hours) {
        Optional<Trends.Window> window = Trends.Window.ofHours(hours == null ? OperatorDefaults.TREND_HOURS : hours);
        if (window.isEmpty()) {
            return Uni.createFrom().item(ActionResult.refused("hours is one of " + Arrays.stream(Trends.Window.values())
                    .map(w -> Integer.toString(w.hours())).collect(Collectors.joining(", "))));
        }
        return trends.read(window.get()).map(picture -> ActionResult.done(picture, "the last " + window.get().hours()
                + " h in points of " + picture.stepMinutes() + " min"));
    }
}
