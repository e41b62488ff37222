/*
 * MPFL 1.0 expression language (spec section 3).
 *
 * Precedence, loosest first: ?: , || or , && and , == != eq ne , < <= > >= lt le gt ge , + - ,
 * * / % , unary - ! not , postfix [i] [i:j] (call).
 * The word forms exist so that expressions inside XML attributes need no &lt; / &amp; escaping.
 * Word operators are reserved: they cannot be used as names.
 */
grammar MpflExpression;

// The package comes from the directory (antlr4-maven-plugin), so no @header here.

/** Entry point: exactly one expression filling the whole attribute value. */
expressionEof : expression EOF ;

/** Entry point for list attributes such as dims="EXPR, EXPR" (at least one element). */
expressionListEof : expression (',' expression)* EOF ;

expression
    : orExpr ('?' expression ':' expression)?                     # conditional
    ;

orExpr      : andExpr ((OROR | OR) andExpr)* ;
andExpr     : equalityExpr ((ANDAND | AND) equalityExpr)* ;
equalityExpr: relationalExpr (op=(EQEQ | NOTEQ | EQ | NE) relationalExpr)* ;
relationalExpr : additiveExpr (op=(LT_ | LE_ | GT_ | GE_ | LT | LE | GT | GE) additiveExpr)* ;
additiveExpr: multiplicativeExpr (op=(PLUS | MINUS) multiplicativeExpr)* ;
multiplicativeExpr : unaryExpr (op=(STAR | SLASH | PERCENT) unaryExpr)* ;

unaryExpr
    : op=(MINUS | BANG | NOT) unaryExpr                            # prefixUnary
    | postfixExpr                                                   # plainUnary
    ;

postfixExpr
    : primary postfix*
    ;

postfix
    : '[' index=expression ']'                                      # indexSuffix
    | '[' from=expression ':' to=expression ']'                     # sliceSuffix
    ;

primary
    : literal                                                       # literalPrimary
    | IDENTIFIER '(' (expression (',' expression)*)? ')'            # callPrimary
    | IDENTIFIER                                                    # namePrimary
    | '[' (expression (',' expression)*)? ']'                       # arrayPrimary
    | '(' expression ')'                                            # parenPrimary
    ;

literal
    : INT_LITERAL                                                   # intLiteral
    | LONG_LITERAL                                                  # longLiteral
    | DOUBLE_LITERAL                                                # doubleLiteral
    | STRING_LITERAL                                                # stringLiteral
    | (TRUE | FALSE)                                                # booleanLiteral
    ;

// ---- lexer ------------------------------------------------------------------------------

OROR    : '||' ;
ANDAND  : '&&' ;
EQEQ    : '==' ;
NOTEQ   : '!=' ;
LE_     : '<=' ;
GE_     : '>=' ;
LT_     : '<' ;
GT_     : '>' ;
PLUS    : '+' ;
MINUS   : '-' ;
STAR    : '*' ;
SLASH   : '/' ;
PERCENT : '%' ;
BANG    : '!' ;

OR      : 'or' ;
AND     : 'and' ;
NOT     : 'not' ;
EQ      : 'eq' ;
NE      : 'ne' ;
LT      : 'lt' ;
LE      : 'le' ;
GT      : 'gt' ;
GE      : 'ge' ;
TRUE    : 'true' ;
FALSE   : 'false' ;

LONG_LITERAL   : DIGITS [lL] ;
DOUBLE_LITERAL
    : DIGITS '.' DIGITS? EXPONENT?
    | '.' DIGITS EXPONENT?
    | DIGITS EXPONENT
    ;
INT_LITERAL    : DIGITS ;
STRING_LITERAL : '\'' ( '\\' . | ~['\\] )* '\'' ;
IDENTIFIER     : [A-Za-z_] [A-Za-z0-9_]* ;

WS : [ \t\r\n]+ -> skip ;

/** Anything else becomes one token so that the parser, not the lexer, reports it with a position. */
UNKNOWN_CHAR : . ;

fragment DIGITS   : [0-9]+ ;
fragment EXPONENT : [eE] [+-]? DIGITS ;
