picks: 1=chiara:chiara_batch=32 8=chiara:chiara_batch=32 64=rabenseifner 512=chiara_loglane 4096=chiara_loglane 
