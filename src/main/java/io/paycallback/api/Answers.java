package io.paycallback.api;

import io.paycallback.ops.ActionResult;
import jakarta.ws.rs.core.Response;

import java.util.function.Function;

/** How the admin API answers an operator action: the success its endpoint chooses, the rest as {@link ErrorBody}. */
final class Answers {

    static final int UNPROCESSABLE = 422;

    private Answers() {
    }

    static <T> Response ok(ActionResult<T> result) {
        return json(result, value -> Response.ok(value).build());
    }

    static <T> Response accepted(ActionResult<T> result) {
        return json(result, value -> Response.accepted(value).build());
    }

    static <T> Response json(ActionResult<T> result, Function<T, Response> success) {
        return json(result, success, conflict -> ErrorBody.response(Response.Status.CONFLICT, conflict.reason()));
    }

    /** With an answer of its own for a conflict, for an endpoint whose 409 carries the state found. */
    static <T> Response json(ActionResult<T> result, Function<T, Response> success,
                             Function<ActionResult.Conflict<T>, Response> conflict) {
        return result.render(new ActionResult.Rendering<>() {
            @Override
            public Response done(ActionResult.Done<T> done) {
                return success.apply(done.value());
            }

            @Override
            public Response notFound(ActionResult.NotFound<T> notFound) {
                return ErrorBody.response(Response.Status.NOT_FOUND, notFound.reason());
            }

            @Override
            public Response conflict(ActionResult.Conflict<T> found) {
                return conflict.apply(found);
            }

            @Override
            public Response refused(ActionResult.Refused<T> refused) {
                return ErrorBody.response(Response.Status.BAD_REQUEST, refused.reason());
            }

            @Override
            public Response unreadable(ActionResult.Unreadable<T> unreadable) {
                return ErrorBody.response(UNPROCESSABLE, unreadable.reason());
            }
        });
    }
}
