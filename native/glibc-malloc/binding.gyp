{
  "targets": [
    {
      "target_name": "glibc_malloc",
      "sources": ["glibc_malloc.c"]
    }
  ]
}
