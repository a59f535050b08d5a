package io.paycallback.ops;

/**
 * What an operator action came to. The admin API and the console each render every kind through one
 * {@link Rendering}, so a new kind does not compile until both say how to show it: nothing falls through to a wrong
 * answer.
 *
 * @param <T> what a successful action answers
 */
public sealed interface ActionResult<T> {

    <R> R render(Rendering<T, R> rendering);

    static <T> ActionResult<T> done(T value, String summary) {
        return new Done<>(value, summary);
    }

    static <T> ActionResult<T> notFound(String reason) {
        return new NotFound<>(reason);
    }

    static <T> ActionResult<T> conflict(String reason) {
        return new Conflict<>(reason, null);
    }

    static <T> ActionResult<T> conflict(String reason, T current) {
        return new Conflict<>(reason, current);
    }

    static <T> ActionResult<T> refused(String reason) {
        return new Refused<>(reason);
    }

    /** @param summary one line for a person: what was done */
    record Done<T>(T value, String summary) implements ActionResult<T> {
        @Override
        public <R> R render(Rendering<T, R> rendering) {
            return rendering.done(this);
        }
    }

    /** Nothing has the name or number asked for. */
    record NotFound<T>(String reason) implements ActionResult<T> {
        @Override
        public <R> R render(Rendering<T, R> rendering) {
            return rendering.notFound(this);
        }
    }

    /**
     * The action cannot be carried out in the present state; nothing changed.
     *
     * @param current that state, where the action can tell it; else null
     */
    record Conflict<T>(String reason, T current) implements ActionResult<T> {
        @Override
        public <R> R render(Rendering<T, R> rendering) {
            return rendering.conflict(this);
        }
    }

    /** The request itself is wrong (a bad field, a missing note, a merchant without keys); nothing changed. */
    record Refused<T>(String reason) implements ActionResult<T> {
        @Override
        public <R> R render(Rendering<T, R> rendering) {
            return rendering.refused(this);
        }
    }

    /** A stored body no longer reads as what it was stored as (a parser change); nothing changed. */
    record Unreadable<T>(String reason) implements ActionResult<T> {
        @Override
        public <R> R render(Rendering<T, R> rendering) {
            return rendering.unreadable(this);
        }
    }

    /** How one front end shows each kind. */
    interface Rendering<T, R> {
        R done(Done<T> done);

        R notFound(NotFound<T> notFound);

        R conflict(Conflict<T> conflict);

        R refused(Refused<T> refused);

        R unreadable(Unreadable<T> unreadable);
    }
}
