picks: 1=rabenseifner 8=rabenseifner 64=rabenseifner 512=chiara_loglane 4096=ring 
