package io.paycallback.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.ops.DeadLetters;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.util.Base64;

/**
 * A dry run's selection as an opaque token (base64url JSON), so the requeue that follows takes exactly the rows the
 * operator saw counted, on whichever instance it lands. Not signed: the operator who holds it may requeue anything
 * anyway; a token that does not decode, or decodes to an invalid filter, is refused.
 */
@ApplicationScoped
@RegisterForReflection(targets = {DeadLetters.Selection.class, DeadLetters.Filter.class})
public class RequeueTokens {

    private final ObjectMapper json;

    public RequeueTokens(ObjectMapper json) {
        this.json = json;
    }

    public String encode(DeadLetters.Selection selection) {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(json.writeValueAsBytes(selection));
        } catch (IOException e) {
            throw new IllegalStateException("a selection is always writable as JSON", e);
        }
    }

    /** @throws IllegalArgumentException when the token is not one of ours */
    public DeadLetters.Selection decode(String token) {
        try {
            DeadLetters.Selection selection = json.readValue(Base64.getUrlDecoder().decode(token), DeadLetters.Selection.class);
            if (selection == null || selection.filter() == null || selection.cutOff() == null) {
                throw new IllegalArgumentException("the token is incomplete");
            }
            return selection;
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not a requeue token from a dry run");
        }
    }
}
