package org.mpfl.compiler.plan;

import org.mpfl.ir.plan.*;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A deliberately small JSON Schema (2020-12) checker for the keywords our plan schema uses:
 * $ref (local), type, const, enum, required, properties, additionalProperties (false), items,
 * minItems, pattern, minimum, oneOf. Anything else in the schema is an error, so the schema cannot
 * silently use a keyword this checker ignores. (No well-kept JSON Schema library is in the build's
 * offline repository; this keeps the dependency list unchanged.)
 */
final class JsonSchemaCheck {
    private static final List<String> SUPPORTED = List.of("$schema", "$id", "title", "description", "$defs", "$ref", "type",
            "const", "enum", "required", "properties", "additionalProperties", "items", "minItems", "pattern", "minimum", "oneOf");

    private final JsonNode root;

    JsonSchemaCheck(JsonNode root) {
        this.root = root;
    }

    /** Violations of {@code instance}, each with its JSON pointer; empty if valid. */
    List<String> validate(JsonNode instance) {
        List<String> errors = new ArrayList<>();
        check(root, instance, "", errors);
        return errors;
    }

    private void check(JsonNode schema, JsonNode value, String path, List<String> errors) {
        for (Iterator<String> names = schema.fieldNames(); names.hasNext();) {
            String keyword = names.next();
            if (!SUPPORTED.contains(keyword)) {
                errors.add("schema uses unsupported keyword " + keyword);
            }
        }
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            check(root.at(ref.substring(1)), value, path, errors);
        }
        if (schema.has("type") && !typeMatches(schema.get("type"), value)) {
            errors.add(path + ": expected " + schema.get("type") + ", found " + value.getNodeType());
            return;
        }
        if (schema.has("const") && !schema.get("const").equals(value)) {
            errors.add(path + ": expected " + schema.get("const") + ", found " + value);
        }
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode option : schema.get("enum")) {
                found |= option.equals(value);
            }
            if (!found) {
                errors.add(path + ": " + value + " not in " + schema.get("enum"));
            }
        }
        if (schema.has("pattern") && value.isTextual() && !Pattern.compile(schema.get("pattern").asText()).matcher(value.asText()).find()) {
            errors.add(path + ": '" + value.asText() + "' does not match " + schema.get("pattern").asText());
        }
        if (schema.has("minimum") && value.isNumber() && value.asDouble() < schema.get("minimum").asDouble()) {
            errors.add(path + ": " + value + " below minimum " + schema.get("minimum"));
        }
        if (value.isObject()) {
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) {
                    errors.add(path + ": missing " + required.asText());
                }
            }
            JsonNode properties = schema.path("properties");
            for (Iterator<Map.Entry<String, JsonNode>> fields = value.fields(); fields.hasNext();) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (properties.has(field.getKey())) {
                    check(properties.get(field.getKey()), field.getValue(), path + "/" + field.getKey(), errors);
                } else if (schema.has("additionalProperties") && !schema.get("additionalProperties").asBoolean(true)) {
                    errors.add(path + ": unexpected field " + field.getKey());
                }
            }
        }
        if (value.isArray()) {
            if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
                errors.add(path + ": fewer than " + schema.get("minItems") + " items");
            }
            if (schema.has("items")) {
                for (int i = 0; i < value.size(); i++) {
                    check(schema.get("items"), value.get(i), path + "/" + i, errors);
                }
            }
        }
        if (schema.has("oneOf")) {
            int matching = 0;
            List<String> closest = null;
            for (JsonNode option : schema.get("oneOf")) {
                List<String> optionErrors = new ArrayList<>();
                check(option, value, path, optionErrors);
                if (optionErrors.isEmpty()) {
                    matching++;
                } else if (closest == null || optionErrors.size() < closest.size()) {
                    closest = optionErrors;
                }
            }
            if (matching != 1) {
                errors.add(path + ": matches " + matching + " alternatives of oneOf"
                        + (matching == 0 && closest != null ? "; closest: " + closest : ""));
            }
        }
    }

    private static boolean typeMatches(JsonNode type, JsonNode value) {
        if (type.isArray()) {
            for (JsonNode t : type) {
                if (typeMatches(t, value)) {
                    return true;
                }
            }
            return false;
        }
        return switch (type.asText()) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            default -> false;
        };
    }
}
