package io.paycallback.api;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Every error answer of the internal and admin APIs: {@code {"error": "..."}}, a message for a person. The OpenAPI
 * document gives it to every error answer ({@link ApiDocument}).
 */
@Schema(name = ErrorBody.SCHEMA)
public record ErrorBody(String error) {

    static final String SCHEMA = "ErrorBody";

    static Response response(Response.Status status, String message) {
        return response(status.getStatusCode(), message);
    }

    static Response response(int status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(new ErrorBody(message)).build();
    }
}
