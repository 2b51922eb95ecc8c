"""A mini LLVM 3.7 IR model: typed pointers, constants, globals, functions,
instructions and metadata - just what DXIL needs - plus a builder and a printer."""

from .builder import IRBuilder
from .metadata import MDNode, MDString, MDValue, NamedMD
from .module import Module
from .types import (
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    LabelType,
    MetadataType,
    PointerType,
    StructType,
    Type,
    VoidType,
    double,
    f16,
    f32,
    i1,
    i8,
    i16,
    i32,
    i64,
    label,
    metadata,
    void,
)
from .values import (
    Argument,
    BasicBlock,
    ConstAggregate,
    Constant,
    ConstFloat,
    ConstInt,
    ConstNull,
    Function,
    GlobalVariable,
    Instruction,
    Undef,
    Value,
)

__all__ = [
    "IRBuilder", "MDNode", "MDString", "MDValue", "NamedMD", "Module", "ArrayType", "FloatType", "FunctionType",
    "IntType", "LabelType", "MetadataType", "PointerType", "StructType", "Type", "VoidType", "double", "f16", "f32",
    "i1", "i8", "i16", "i32", "i64", "label", "metadata", "void", "Argument", "BasicBlock", "Constant",
    "ConstAggregate", "ConstFloat", "ConstInt", "ConstNull", "Function", "GlobalVariable", "Instruction", "Undef",
    "Value",
]
